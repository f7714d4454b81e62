import { listenError, readDeliveryCounts } from '@platform/db';
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SenderClock } from './clock';
import type { Sql } from './sql';

export interface SenderMetrics {
  registry: Registry;
  attempts: Tally<'result', 'success' | 'http_error' | 'network'>;
  deliveries: Tally<'outcome', 'delivered' | 'retry' | 'failed'>;
  attemptSeconds: Histogram;
  inFlight: { inc(): void; dec(): void };
}

/** A counter of prom-client by one label whose values are known up front. */
export interface Tally<N extends string, V extends string> {
  inc(labels: Record<N, V>): void;
}

/**
 * A counter counted in plain numbers on the delivery's path and handed to prom-client when it is
 * scraped (its `inc` hashes the labels each time: with the gauge of attempts in flight, about half a
 * microsecond a delivery, bench/webhooks 2026-12-03). Every value is a series from 0 at start: a
 * first failure is then an increase a rate() sees, and the alert rules
 * (deploy/prometheus/alerts.yml) find the series before anything failed.
 */
function tally<N extends string, V extends string>(
  registry: Registry,
  config: { name: string; help: string; label: N; values: readonly V[] },
): Tally<N, V> {
  const { label, values } = config;
  const counts = Object.fromEntries(values.map((v) => [v, 0])) as Record<V, number>;
  const published = { ...counts };
  new Counter({
    name: config.name,
    help: config.help,
    labelNames: [label],
    registers: [registry],
    collect() {
      for (const value of values) {
        this.inc({ [label]: value } as Record<N, V>, counts[value] - published[value]);
        published[value] = counts[value];
      }
    },
  });
  return {
    inc(labels) {
      counts[labels[label]]++;
    },
  };
}

/**
 * Prometheus metrics of one sender. Queue depth and the age of the oldest due delivery are read
 * from the database at scrape time (they are the deployment's, not this process's); `now` is the
 * service clock.
 */
export function createSenderMetrics(sql: Sql, clock: SenderClock, options: { processMetrics?: boolean } = {}): SenderMetrics {
  const registry = new Registry();
  // The process's own (CPU, memory, event loop lag, GC), named as the API's; only when they are
  // served: the event-loop monitor wakes the process every few milliseconds, and an idle sender
  // should cost nothing (issue 17). Sampled every 100 ms rather than prom-client's 10.
  if (options.processMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const attempts = tally(registry, {
    name: 'webhook_attempts_total',
    help: 'Delivery attempts by result: success (2xx), http_error (any other answer), network (no answer: refused, timeout, private address)',
    label: 'result',
    values: ['success', 'http_error', 'network'],
  });
  const deliveries = tally(registry, {
    name: 'webhook_deliveries_total',
    help: 'Deliveries finished or rescheduled by this sender, by outcome: delivered, retry, failed',
    label: 'outcome',
    values: ['delivered', 'retry', 'failed'],
  });
  const attemptSeconds = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Duration of delivery attempts',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  let running = 0;
  new Gauge({
    name: 'webhook_sender_in_flight',
    help: 'Attempts in flight in this sender',
    registers: [registry],
    collect() {
      this.set(running);
    },
  });
  const inFlight = { inc: () => void running++, dec: () => void running-- };
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Pending deliveries (due now or later)',
    labelNames: ['due'],
    registers: [registry],
    async collect() {
      // The pending total from the counts the database keeps (issue 48: no count over the history);
      // those not due yet counted on the pending rows' index, from now on (retries waiting).
      await clock.sync();
      const counts = await readDeliveryCounts(sql.query);
      const [row] = await sql.query<{ later: bigint }>(
        `SELECT COUNT(*) AS later FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > ?`,
        [clock.now()],
      );
      const total = counts.get('pending') ?? 0;
      const due = Math.max(0, total - Number(row?.later ?? 0));
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

export interface ServiceEndpoints {
  metrics: SenderMetrics;
  /** Resolves when the database answers (readiness). */
  ping(): Promise<unknown>;
  /** True once the sender was told to stop: not ready any more. */
  stopping(): boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The sender's own port (PLATFORM_SENDER_METRICS_PORT; decisions §12.3, issue 15), the same three
 * endpoints as the API's: `GET /healthz` (the process is up), `GET /readyz` (the database answers
 * and the sender is not stopping; 503 with `{"errors"}` otherwise) and `GET /metrics`. Anything
 * else is 404.
 */
export async function serveSenderEndpoints(endpoints: ServiceEndpoints, host: string, port: number): Promise<Server> {
  const { metrics } = endpoints;
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': JSON_TYPE, ...headers }).end(JSON.stringify(body));
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { errors: 'Method Not Allowed' }, { allow: 'GET, HEAD' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      if (endpoints.stopping()) return json(503, { errors: 'Shutting down' });
      endpoints.ping().then(
        () => json(200, { status: 'ready' }),
        () => json(503, { errors: 'Database unreachable' }, { 'retry-after': '5' }),
      );
      return;
    }
    if (path !== '/metrics') return json(404, { errors: 'Not Found' });
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => json(503, { errors: 'Metrics unavailable: the database did not answer' }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(listenError(error, { host: 'PLATFORM_SENDER_METRICS_HOST', port: 'PLATFORM_SENDER_METRICS_PORT' }, host, port)),
    );
    server.listen(port, host, () => resolve());
  });
  return server;
}
