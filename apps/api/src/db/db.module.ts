import { DynamicModule, Global, Inject, Module } from '@nestjs/common';
import type { Db } from '@platform/db';
import { ClockService } from '../clock/clock.service';
import type { Config } from '../config';
import { BodyGates } from '../http/body-gates';
import { HttpMetrics } from '../http/metrics';
import type { RateLimiter } from '../http/rate-limiter';

export const DB = Symbol('DB');
export const CONFIG = Symbol('CONFIG');
export const RATE_LIMITER = Symbol('RATE_LIMITER');
export const InjectDb = (): ParameterDecorator => Inject(DB);
export const InjectConfig = (): ParameterDecorator => Inject(CONFIG);

export interface CoreParts {
  db: Db;
  config: Config;
  clock: ClockService;
  metrics: HttpMetrics;
  rateLimiter: RateLimiter;
  gates: BodyGates;
}

/** The database, the configuration, the clock and the metrics, made once by the bootstrap and shared by every module. */
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
        { provide: HttpMetrics, useValue: core.metrics },
        { provide: RATE_LIMITER, useValue: core.rateLimiter },
        { provide: BodyGates, useValue: core.gates },
      ],
      exports: [DB, CONFIG, ClockService, HttpMetrics, RATE_LIMITER, BodyGates],
    };
  }
}
