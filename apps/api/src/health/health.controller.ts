import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { Db } from '@platform/db';
import type { FastifyReply } from 'fastify';
import { InjectDb, RATE_LIMITER } from '../db/db.module';
import { HttpMetrics } from '../http/metrics';
import type { RateLimiter } from '../http/rate-limiter';
import { DRAINING } from './draining';

/** decisions §12.3: liveness, readiness, metrics. */
@Controller()
export class HealthController {
  constructor(
    @InjectDb() private readonly db: Db,
    private readonly http: HttpMetrics,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  @Get('healthz')
  healthz() {
    return { status: 'ok' };
  }

  /**
   * decisions §12.3: ready when the database answers; a dependency the replica works without for
   * now (Redis: own buckets) is named in `degraded` and stays 200, so the balancer keeps routing.
   * A replica draining after SIGTERM is not ready, so the balancer stops sending it requests.
   */
  @Get('readyz')
  async readyz(@Res({ passthrough: true }) reply: FastifyReply) {
    if (DRAINING.on) {
      void reply.code(503);
      return { errors: 'Shutting down' };
    }
    try {
      await this.db.query('SELECT 1 AS ok');
    } catch {
      void reply.code(503).header('retry-after', '5');
      return { errors: 'Database unreachable' };
    }
    const degraded = this.limiter.degraded();
    return degraded.length > 0 ? { status: 'ready', degraded } : { status: 'ready' };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  metrics() {
    return this.http.registry.metrics();
  }
}
