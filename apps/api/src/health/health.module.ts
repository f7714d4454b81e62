import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthRepository } from './health.repository';
import { ReplicaMetrics } from './replica-metrics';

/** decisions §12.3: /healthz, /readyz, /metrics. */
@Module({ controllers: [HealthController], providers: [HealthRepository, ReplicaMetrics] })
export class HealthModule {}
