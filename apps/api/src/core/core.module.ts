import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Db } from '@platform/db';
import { ClockService } from './clock.service';
import type { Config } from '../config';
import { CONFIG, DB } from './injection';
import { Transactions } from './transactions';

export interface CoreParts {
  db: Db;
  config: Config;
  clock: ClockService;
}

/**
 * The database, the configuration and the clock, made once by the bootstrap before Nest; and the
 * transaction runner. Shared by every module.
 */
@Global()
@Module({})
export class CoreModule {
  static register(core: CoreParts): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: DB, useValue: core.db },
        { provide: CONFIG, useValue: core.config },
        { provide: ClockService, useValue: core.clock },
        Transactions,
      ],
      exports: [DB, CONFIG, ClockService, Transactions],
    };
  }
}
