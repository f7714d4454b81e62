import { Controller, Get, Header, Res } from '@nestjs/common';
import type { Db } from '@platform/db';
import type { FastifyReply } from 'fastify';
import { InjectDb } from '../db/db.module';
import { HttpMetrics } from '../http/metrics';

/** decisions §12.3: liveness, readiness, metrics. */
@Controller()
export class HealthController {
  constructor(
    @InjectDb() private readonly db: Db,
    private readonly http: HttpMetrics,
  ) {}

  @Get('healthz')
  healthz() {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readyz(@Res({ passthrough: true }) reply: FastifyReply) {
    try {
      await this.db.query('SELECT 1 AS ok');
      return { status: 'ready' };
    } catch {
      void reply.code(503);
      return { errors: 'Database unreachable' };
    }
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  metrics() {
    return this.http.registry.metrics();
  }
}
