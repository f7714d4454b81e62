import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Db } from '@platform/db';
import { ClockService } from './clock.service';
import type { Config } from '../config';
import { AdminAccess } from '../http/admin-access';
import { BodyGates } from '../http/body-gates';
import { HttpMetrics } from '../http/metrics';
import type { RateLimiter } from '../http/rate-limiter';
import { CONFIG, DB, RATE_LIMITER } from './injection';
import { Transactions } from './transactions';

export interface CoreParts {
  db: Db;
  config: Config;
  clock: ClockService;
  metrics: HttpMetrics;
  rateLimiter: RateLimiter;
  gates: BodyGates;
  access: AdminAccess;
}

/**
 * The database, the configuration, the clock, the metrics, the rate limiter and the body gates, made
 * once by the bootstrap before Nest; and the transaction runner. Shared by every module.
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
        { provide: HttpMetrics, useValue: core.metrics },
        { provide: RATE_LIMITER, useValue: core.rateLimiter },
        { provide: BodyGates, useValue: core.gates },
        { provide: AdminAccess, useValue: core.access },
        Transactions,
      ],
      exports: [DB, CONFIG, ClockService, HttpMetrics, RATE_LIMITER, BodyGates, AdminAccess, Transactions],
    };
  }
}
