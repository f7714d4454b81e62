import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { RATE_LIMITER } from '../http/injection';
import { HttpMetrics } from '../http/metrics';
import type { RateLimiter } from '../http/rate-limiter';
import { DRAINING } from './draining';

/** The dependencies a replica works without for a while (decisions §12.7); each has a series, 0 or 1. */
const DEPENDENCIES = ['redis'] as const;

/**
 * What `/readyz` says, as series an alert can watch (deploy/prometheus/alerts.yml): this replica
 * draining after SIGTERM (1 until it exits; a drain that does not end is worth a page), and each
 * dependency it is running without (`degraded` on /readyz). Read at scrape time, as /readyz reads them.
 */
@Injectable()
export class ReplicaMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: HttpMetrics,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    new Gauge({
      name: 'platform_draining',
      help: '1 while this API replica drains after SIGTERM (not ready, finishing what is in flight), else 0',
      registers,
      collect() {
        this.set(DRAINING.on ? 1 : 0);
      },
    });
    const limiter = this.limiter;
    new Gauge({
      name: 'platform_dependency_degraded',
      help: "1 while this replica runs without the dependency (Redis: each replica's own rate-limit buckets), else 0",
      labelNames: ['dependency'] as const,
      registers,
      async collect() {
        const degraded = await limiter.degraded();
        for (const dependency of DEPENDENCIES) this.set({ dependency }, degraded.includes(dependency) ? 1 : 0);
      },
    });
  }
}
