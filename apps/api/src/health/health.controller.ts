import { Controller, Get, Header, Inject, Req, Res } from '@nestjs/common';
import { DomainError } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { RATE_LIMITER } from '../http/injection';
import { HealthRepository } from './health.repository';
import { isOperatorToken } from '../http/bearer';
import { HttpMetrics } from '../http/metrics';
import type { RateLimiter } from '../http/rate-limiter';
import { DRAINING } from './draining';

/** decisions §12.3: liveness, readiness, metrics. */
@Controller()
export class HealthController {
  constructor(
    private readonly database: HealthRepository,
    private readonly http: HttpMetrics,
    @InjectConfig() private readonly config: Config,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  @Get('healthz')
  healthz() {
    return { status: 'ok' };
  }

  /**
   * decisions §12.3: ready when the database answers; a dependency the replica works without for
   * now (Redis down, or not answering within its budget: own buckets; decisions §12.7) is named in
   * `degraded` and stays 200, so the balancer keeps routing.
   * A replica draining after SIGTERM is not ready, so the balancer stops sending it requests.
   */
  @Get('readyz')
  async readyz(@Res({ passthrough: true }) reply: FastifyReply) {
    if (DRAINING.on) {
      void reply.code(503);
      return { errors: 'Shutting down' };
    }
    try {
      await this.database.ping();
    } catch {
      void reply.code(503).header('retry-after', '5');
      return { errors: 'Database unreachable' };
    }
    const degraded = await this.limiter.degraded();
    return degraded.length > 0 ? { status: 'ready', degraded } : { status: 'ready' };
  }

  /**
   * decisions §12.3: on the public listener only with the operator token (route names, volumes and
   * error rates are the platform team's, not the public's); PLATFORM_METRICS_PORT serves the same
   * text without a token to an internal scraper (health/metrics-listener.ts).
   */
  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  metrics(@Req() request: FastifyRequest) {
    if (!isOperatorToken(request.headers.authorization, this.config.operatorToken)) {
      throw new DomainError('UNAUTHENTICATED', 'Invalid or missing operator token: /metrics needs it here, or use PLATFORM_METRICS_PORT');
    }
    return this.http.registry.metrics();
  }
}
