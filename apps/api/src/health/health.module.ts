import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthRepository } from './health.repository';

/** decisions §12.3: /healthz, /readyz, /metrics. */
@Module({ controllers: [HealthController], providers: [HealthRepository] })
export class HealthModule {}
