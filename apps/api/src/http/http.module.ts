import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AdminAccess } from './admin-access';
import { BodyGates } from './body-gates';
import { ErrorsFilter } from './errors.filter';
import { RATE_LIMITER } from './injection';
import { HttpMetrics } from './metrics';
import type { RateLimiter } from './rate-limiter';

/** The parts of the HTTP edge the bootstrap makes before Nest: Fastify's hooks use them before any module starts. */
export interface EdgeParts {
  metrics: HttpMetrics;
  rateLimiter: RateLimiter;
  gates: BodyGates;
  access: AdminAccess;
}

/**
 * The edge's parts for every module (the metrics, the rate limiter, the body gates, the slot of the
 * Admin API's access check), and the one filter that writes errors of every route Nest serves.
 */
@Global()
@Module({})
export class HttpModule {
  static register(edge: EdgeParts): DynamicModule {
    return {
      module: HttpModule,
      providers: [
        { provide: HttpMetrics, useValue: edge.metrics },
        { provide: RATE_LIMITER, useValue: edge.rateLimiter },
        { provide: BodyGates, useValue: edge.gates },
        { provide: AdminAccess, useValue: edge.access },
        { provide: APP_FILTER, useClass: ErrorsFilter },
      ],
      exports: [HttpMetrics, RATE_LIMITER, BodyGates, AdminAccess],
    };
  }
}
