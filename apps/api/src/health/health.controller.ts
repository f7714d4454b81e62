import { Controller, Get, Header, Res } from '@nestjs/common';
import type { Db } from '@platform/db';
import type { FastifyReply } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { InjectDb } from '../db/db.module';

/** decisions §12.3: liveness, readiness, metrics. */
@Controller()
export class HealthController {
  private readonly registry = new Registry();

  constructor(@InjectDb() private readonly db: Db) {
    collectDefaultMetrics({ register: this.registry });
  }

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
    return this.registry.metrics();
  }
}
