import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { ClockService } from '../core/clock.service';
import { HttpMetrics } from '../http/metrics';
import { DeliveriesRepository, type QueueStats } from './deliveries.repository';

const STATUSES = ['pending', 'delivered', 'failed'] as const;
/** decisions §11.5: why a subscription is disabled (a 410, 8 failed deliveries in a row, the app itself). */
const DISABLED_REASONS = ['gone', 'failures', 'api'] as const;

/**
 * decisions §12.3: the outbox in /metrics, read from the database on each scrape (so every API
 * replica reports the shared queue): its depth, the age of the oldest due delivery, deliveries by
 * status, and subscriptions enabled and disabled (by reason: deploy/prometheus/alerts.yml pages on
 * one disabled by its receiver).
 */
@Injectable()
export class WebhookMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: HttpMetrics,
    private readonly repository: DeliveriesRepository,
    private readonly clock: ClockService,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    // One database read per scrape, shared by the three gauges.
    let pending: Promise<{ stats: QueueStats; now: Date }> | undefined;
    const read = () => {
      pending ??= (async () => {
        try {
          await this.clock.sync();
          const now = this.clock.now();
          return { stats: await this.repository.queueStats(now), now };
        } finally {
          setImmediate(() => (pending = undefined));
        }
      })();
      return pending;
    };
    new Gauge({
      name: 'webhook_queue_depth',
      help: 'Webhook deliveries pending (due now or waiting for a retry)',
      registers,
      async collect() {
        const { stats } = await read();
        this.set(stats.byStatus.get('pending') ?? 0);
      },
    });
    new Gauge({
      name: 'webhook_oldest_due_delivery_age_seconds',
      help: 'How long the oldest pending delivery has been due (0 when none is due), on the service clock',
      registers,
      async collect() {
        const { stats, now } = await read();
        this.set(stats.oldestDueAt ? Math.max(0, (now.getTime() - stats.oldestDueAt.getTime()) / 1000) : 0);
      },
    });
    new Gauge({
      name: 'webhook_deliveries',
      help: 'Webhook deliveries by status',
      labelNames: ['status'] as const,
      registers,
      async collect() {
        const { stats } = await read();
        for (const status of STATUSES) this.set({ status }, stats.byStatus.get(status) ?? 0);
      },
    });
    new Gauge({
      name: 'webhook_subscriptions',
      help: 'Webhook subscriptions by status; disabled ones by reason: gone (a 410), failures (8 failed deliveries in a row), api (the app)',
      labelNames: ['status', 'reason'] as const,
      registers,
      async collect() {
        const { stats } = await read();
        this.set({ status: 'enabled', reason: '' }, stats.subscriptions.get('enabled:') ?? 0);
        for (const reason of DISABLED_REASONS) this.set({ status: 'disabled', reason }, stats.subscriptions.get(`disabled:${reason}`) ?? 0);
      },
    });
  }
}
