import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SenderClock } from './clock';
import type { Sql } from './sql';

export interface SenderMetrics {
  registry: Registry;
  attempts: Counter<'result'>;
  deliveries: Counter<'outcome'>;
  attemptSeconds: Histogram;
  inFlight: Gauge;
}

/**
 * Prometheus metrics of one sender. Queue depth and the age of the oldest due delivery are read
 * from the database at scrape time (they are the deployment's, not this process's); `now` is the
 * service clock.
 */
export function createSenderMetrics(sql: Sql, clock: SenderClock): SenderMetrics {
  const registry = new Registry();
  const attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Delivery attempts by result: success (2xx), http_error (any other answer), network (no answer: refused, timeout, private address)',
    labelNames: ['result'],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Deliveries finished or rescheduled by this sender, by outcome: delivered, retry, failed',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const attemptSeconds = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Duration of delivery attempts',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const inFlight = new Gauge({ name: 'webhook_sender_in_flight', help: 'Attempts in flight in this sender', registers: [registry] });
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Pending deliveries (due now or later)',
    labelNames: ['due'],
    registers: [registry],
    async collect() {
      await clock.sync();
      const [row] = await sql.query<{ total: bigint; due: bigint }>(
        `SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN next_attempt_at <= ? THEN 1 ELSE 0 END), 0) AS due
         FROM webhook_deliveries WHERE status = 'pending'`,
        [clock.now()],
      );
      const total = Number(row?.total ?? 0);
      const due = Number(row?.due ?? 0);
      this.set({ due: 'now' }, due);
      this.set({ due: 'later' }, total - due);
    },
  });
  new Gauge({
    name: 'webhook_oldest_due_age_seconds',
    help: 'How long the oldest due delivery has been due (0 when none is)',
    registers: [registry],
    async collect() {
      await clock.sync();
      const at = clock.now();
      const [row] = await sql.query<{ next_attempt_at: Date }>(
        `SELECT next_attempt_at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT 1`,
        [at],
      );
      this.set(row ? Math.max(0, (at.getTime() - row.next_attempt_at.getTime()) / 1000) : 0);
    },
  });
  return { registry, attempts, deliveries, attemptSeconds, inFlight };
}

/** GET /metrics on its own port (PLATFORM_SENDER_METRICS_PORT); anything else is 404. */
export async function serveMetrics(metrics: SenderMetrics, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end('{"errors":"Not Found"}');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${String(error)}`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
