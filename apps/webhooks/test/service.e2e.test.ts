import { withTraceId, type Db } from '@platform/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  freshDatabase,
  outboxEvent,
  receiver,
  spawnSender,
  storeAndApp,
  subscription,
  waitFor,
  type SenderProcess,
} from './helpers';

/*
 * Issue 15, one observability story, the sender's half: its log lines are the API's JSON lines
 * (service "webhooks"), a delivery's lines carry the traceId of the request that wrote the event
 * (the API's half: apps/api test/trace-events.e2e.test.ts), and its own port answers /healthz,
 * /readyz and /metrics like the API's.
 */

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sender: SenderProcess;
let port: number;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

beforeAll(async () => {
  database = await freshDatabase();
  db = database.db;
  port = await freePort();
  sender = spawnSender({ DATABASE_URL: database.url, LOG_LEVEL: 'info', PLATFORM_SENDER_METRICS_PORT: String(port) });
  await waitFor(() => sender.output().includes('webhook sender started'), 'the sender started');
});
afterAll(async () => {
  sender.child.kill('SIGTERM');
  await sender.exited;
  await database.drop();
});

const lines = () =>
  sender
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const get = (path: string, method = 'GET') => fetch(`http://127.0.0.1:${port}${path}`, { method });

describe('the sender, seen from outside (issue 15)', () => {
  it('logs JSON lines with its service name, and the traceId of the request that wrote the event on its delivery lines', async () => {
    const r = await receiver();
    try {
      const f = await storeAndApp(db);
      await subscription(db, f, r.url);
      await withTraceId(TRACE, () => outboxEvent(db, f, '{"traced":true}'));
      await outboxEvent(db, f, '{"traced":false}');
      await waitFor(() => r.received.length === 2, 'both events');
      const attempts = await waitFor(() => {
        const found = lines().filter((l) => l.msg === 'webhook attempt');
        return found.length === 2 ? found : undefined;
      }, 'two attempt lines');
      for (const line of lines())
        expect(line).toMatchObject({ service: 'webhooks', pid: sender.child.pid, level: expect.any(String), time: expect.any(String) });
      const byTrace = attempts.map((l) => l.traceId);
      expect(byTrace.filter((t) => t === TRACE)).toHaveLength(1);
      // The event written outside any request has no traceId on its line.
      expect(byTrace.filter((t) => t === undefined)).toHaveLength(1);
      expect(attempts.every((l) => l.outcome === 'delivered' && l.status === 200)).toBe(true);
    } finally {
      await r.close();
    }
  });

  it('answers /healthz, /readyz and /metrics on its own port; anything else is a JSON 404 or 405', async () => {
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    const metrics = await (await get('/metrics')).text();
    // The API's names where the two measure the same thing (process_*, nodejs_*), webhook_* for
    // deliveries, and the queue read from the database.
    expect(metrics).toMatch(/^process_cpu_seconds_total \d/m);
    expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(metrics).toMatch(/^webhook_deliveries_total\{outcome="delivered"\} [1-9]/m);
    expect(metrics).toMatch(/^webhook_queue_depth\{due="now"\} 0$/m);
    const missing = await get('/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ errors: 'Not Found' });
    const post = await get('/readyz', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
