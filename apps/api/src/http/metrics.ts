import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * decisions §12.3: what `GET /metrics` exposes. Process metrics, and per request: the count and
 * duration by method, route pattern (never the raw URL, so ids and cursors do not explode the
 * series) and status.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to answer, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The series of each (method, route, status), looked up once: the hot path skips prom-client's label hashing. */
  private readonly series = new Map<string, { requests: { inc(): void }; duration: { observe(value: number): void } }>();

  observe(method: string, route: string | undefined, status: number, seconds: number): void {
    const key = `${method} ${status} ${route ?? ''}`;
    let series = this.series.get(key);
    if (series === undefined) {
      const labels = { method, route: route ?? 'unmatched', status: String(status) };
      series = { requests: this.requests.labels(labels), duration: this.duration.labels(labels) };
      this.series.set(key, series);
    }
    series.requests.inc();
    series.duration.observe(seconds);
  }
}
