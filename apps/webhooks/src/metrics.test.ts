import { describe, expect, it } from 'vitest';
import { createSenderMetrics } from './metrics';
import type { SenderClock } from './clock';
import type { Sql } from './sql';

// The counters are counted in plain numbers and handed to prom-client at scrape time: what a scrape
// shows must be the running total, scrape after scrape, each value a series from the start.
describe('sender metrics', () => {
  // Only the scraped metrics below are collected: the queue gauges (which read the database) are not.
  const metrics = createSenderMetrics({} as Sql, {} as SenderClock);
  const scrape = async (name: string) => metrics.registry.getSingleMetricAsString(name);

  it('shows every result and outcome from 0 before anything happened', async () => {
    expect(await scrape('webhook_attempts_total')).toMatch(/^webhook_attempts_total\{result="network"\} 0$/m);
    expect(await scrape('webhook_deliveries_total')).toMatch(/^webhook_deliveries_total\{outcome="failed"\} 0$/m);
    expect(await scrape('webhook_sender_in_flight')).toMatch(/^webhook_sender_in_flight 0$/m);
  });

  it('keeps running totals across scrapes', async () => {
    metrics.attempts.inc({ result: 'success' });
    metrics.attempts.inc({ result: 'success' });
    metrics.deliveries.inc({ outcome: 'delivered' });
    metrics.inFlight.inc();
    metrics.inFlight.inc();
    expect(await scrape('webhook_attempts_total')).toMatch(/^webhook_attempts_total\{result="success"\} 2$/m);
    expect(await scrape('webhook_sender_in_flight')).toMatch(/^webhook_sender_in_flight 2$/m);
    metrics.attempts.inc({ result: 'success' });
    metrics.attempts.inc({ result: 'http_error' });
    metrics.inFlight.dec();
    const text = await scrape('webhook_attempts_total');
    expect(text).toMatch(/^webhook_attempts_total\{result="success"\} 3$/m);
    expect(text).toMatch(/^webhook_attempts_total\{result="http_error"\} 1$/m);
    expect(text).toMatch(/^webhook_attempts_total\{result="network"\} 0$/m);
    expect(await scrape('webhook_deliveries_total')).toMatch(/^webhook_deliveries_total\{outcome="delivered"\} 1$/m);
    expect(await scrape('webhook_sender_in_flight')).toMatch(/^webhook_sender_in_flight 1$/m);
  });
});
