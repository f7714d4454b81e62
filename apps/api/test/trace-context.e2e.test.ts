import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startPlatform, VERSION, type TestPlatform } from './harness';

// Issue 15, item 5 (first part): a caller's W3C traceparent becomes the request's traceId.
let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

describe('traceparent (W3C Trace Context)', () => {
  it("answers with the caller's trace id as traceId", async () => {
    const r = await call(`${t.origin}/admin/openapi/${VERSION}/products/products.json`, {
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('traceId')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('makes its own trace id without one, or with a malformed one', async () => {
    const variants: Record<string, string>[] = [{}, { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }];
    for (const headers of variants) {
      const r = await call(`${t.origin}/admin/openapi/${VERSION}/products/products.json`, { headers });
      expect(r.headers.get('traceId')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });
});
