import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPERATOR_TOKEN, operator, startPlatform, storeWithApp, type TestPlatform } from './harness';
import { storeHost } from './oauth.helpers';

/*
 * Issue 14, finding 4: /metrics answered anyone on the public listener, and /docs was served on
 * every store's host (the merchant pages' origin) without CSP, framing or nosniff headers.
 */

/** A port free right now on loopback (the metrics listener is given a fixed port, as in production). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

let t: TestPlatform;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  t = await startPlatform({ PLATFORM_METRICS_PORT: String(metricsPort) });
  await operator(t).createStore('shop');
});
afterAll(async () => {
  await t?.close();
});

describe('/metrics (decisions §12.3)', () => {
  it('needs the operator token on the main listener: 401 with a trace id and an errors body without it', async () => {
    for (const token of [undefined, 'wrong-token-0123456789', `${OPERATOR_TOKEN}x`]) {
      const r = await call(`${t.origin}/metrics`, token ? { token } : {});
      expect(r.status).toBe(401);
      expect(r.body.errors).toMatch(/operator token/);
      expect(r.headers.get('traceId')).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.text).not.toContain('http_requests_total');
    }
    const ok = await call(`${t.origin}/metrics`, { token: OPERATOR_TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('http_requests_total');
  });

  it('shows the database pool in use on PostgreSQL (none on SQLite, which has no pool)', async () => {
    const text = (await call(`${t.origin}/metrics`, { token: OPERATOR_TOKEN })).text;
    if (t.platform.db.provider === 'postgresql') {
      expect(text).toMatch(/^db_pool_connections\{state="total"\} [1-9]/m);
      expect(text).toMatch(/^db_pool_connections\{state="waiting"\} 0/m);
    } else {
      expect(text).not.toContain('db_pool_connections');
    }
  });

  it('is served without a token on PLATFORM_METRICS_PORT, and nothing else is', async () => {
    const r = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(await r.text()).toContain('process_cpu_user_seconds_total');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/admin/openapi/v20260901/products/products.json`)).status).toBe(404);
  });
});

describe("/metrics: what deploy/prometheus/alerts.yml watches (issue 44, the runbook's alerts)", () => {
  const sample = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('subscriptions enabled and disabled, by reason, read from the database at each scrape', async () => {
    const shop = await storeWithApp(t, 'metrics', ['read_inventory']);
    const subscribe = async (address: string) =>
      BigInt((await shop.admin('/webhooks.json', { body: { webhook: { topic: 'inventory_items/update', address } } })).body.webhook.id);
    const [byApp, byFailures] = [await subscribe('https://hooks.example.com/a'), await subscribe('https://hooks.example.com/b')];
    await subscribe('https://hooks.example.com/c');
    const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const before = await scrape();
    expect(sample(before, 'webhook_subscriptions{status="enabled",reason=""}')).toBe(3);
    expect(sample(before, 'webhook_subscriptions{status="disabled",reason="failures"}')).toBe(0);
    expect((await shop.admin(`/webhooks/${byApp}.json`, { method: 'PUT', body: { webhook: { status: 'disabled' } } })).status).toBe(200);
    // What the sender writes after 8 failed deliveries in a row (decisions §11.5).
    await t.platform.db.prisma.webhookSubscription.update({
      where: { id: byFailures },
      data: { status: 'disabled', disabledReason: 'failures', failureStreak: 8 },
    });
    const after = await scrape();
    expect(sample(after, 'webhook_subscriptions{status="enabled",reason=""}')).toBe(1);
    expect(sample(after, 'webhook_subscriptions{status="disabled",reason="api"}')).toBe(1);
    expect(sample(after, 'webhook_subscriptions{status="disabled",reason="failures"}')).toBe(1);
    expect(sample(after, 'webhook_subscriptions{status="disabled",reason="gone"}')).toBe(0);
  });

  it('the replica is not draining, and names Redis degraded while Redis does not answer (as /readyz does)', async () => {
    const text = (await call(`${t.origin}/metrics`, { token: OPERATOR_TOKEN })).text;
    expect(sample(text, 'platform_draining')).toBe(0);
    expect(sample(text, 'platform_dependency_degraded{dependency="redis"}')).toBe(0);
    // Nothing listens on this port: the replica starts on its own buckets (docs/production.md).
    const noRedis = await startPlatform({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    try {
      const degraded = (await call(`${noRedis.origin}/metrics`, { token: OPERATOR_TOKEN })).text;
      expect(sample(degraded, 'platform_dependency_degraded{dependency="redis"}')).toBe(1);
      expect((await call(`${noRedis.origin}/readyz`)).body.degraded).toEqual(['redis']);
    } finally {
      await noRedis.close();
    }
  });
});

describe('/docs (decisions §12.3; issue 14, finding 4)', () => {
  it("is not served on a store host, whose origin is the merchant pages'", async () => {
    for (const path of ['/docs', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/docs-init.js']) {
      const r = await call(`${t.origin}${path}`, { headers: { host: storeHost(t, 'shop') } });
      expect(r.status, path).toBe(404);
    }
  });

  it('carries a strict CSP, no framing, nosniff and no inline script on the bare host', async () => {
    const r = await call(`${t.origin}/docs`);
    expect(r.status).toBe(200);
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.text).not.toMatch(/<script>(?!<)/);
    const asset = await call(`${t.origin}/docs/assets/docs-init.js`);
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
  });
  // Rendered in Chromium under that policy, with no violation: docs.browser.e2e.test.ts (one render of the reference).
});
