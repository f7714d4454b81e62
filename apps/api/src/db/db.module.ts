import { DynamicModule, Global, Inject, Module } from '@nestjs/common';
import type { Db } from '@platform/db';
import { ClockService } from '../clock/clock.service';
import type { Config } from '../config';

export const DB = Symbol('DB');
export const CONFIG = Symbol('CONFIG');
export const InjectDb = (): ParameterDecorator => Inject(DB);
export const InjectConfig = (): ParameterDecorator => Inject(CONFIG);

/** The database, the configuration and the clock, made once by the bootstrap and shared by every module. */
@Global()
@Module({})
export class CoreModule {
  static register(core: { db: Db; config: Config; clock: ClockService }): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: DB, useValue: core.db },
        { provide: CONFIG, useValue: core.config },
        { provide: ClockService, useValue: core.clock },
      ],
      exports: [DB, CONFIG, ClockService],
    };
  }
}
