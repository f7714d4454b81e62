import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from './api-process';
import { call, freshDatabase, OPERATOR_TOKEN } from './harness';

/*
 * Issue 15, one observability story: every log line of the API is one JSON object with the
 * service's name, Nest's own lines included, and the lines of a request carry its traceId (the
 * caller's W3C trace id when it sent one). The start banner is for people and stands apart.
 */

let api: ApiProcess;
let drop: () => Promise<void>;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

beforeAll(async () => {
  const database = await freshDatabase();
  drop = database.drop;
  api = await startApiProcess(database.url, { LOG_LEVEL: 'debug' });
});
afterAll(async () => {
  await api?.stop();
  await drop?.();
});

/** The log lines: stdout without the banner block the start prints for people. */
function logLines(): string[] {
  const lines = api.stdout().split('\n');
  const start = lines.findIndex((l) => l.startsWith('Platform Admin API is up'));
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.filter((l, i) => l.trim() !== '' && (start === -1 || i < start || i > end) && !l.startsWith('  '));
}

describe('logs (issue 15)', () => {
  it("are one JSON object a line, with the service's name, Nest's own lines included", async () => {
    await call(`${api.origin}/healthz`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = logLines();
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(entry, line).toMatchObject({ service: 'api', level: expect.any(String), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    }
    expect(lines.some((l) => (JSON.parse(l) as { context?: string }).context === 'InstanceLoader')).toBe(true);
  });

  it("carry the request's traceId: the caller's trace id from traceparent, or the one made for it", async () => {
    await call(`${api.origin}/admin/openapi/v20260901/products/products.json`, {
      headers: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
    });
    const refused = await call(`${api.origin}/platform/v1/clock`, { token: `${OPERATOR_TOKEN}-wrong` });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const entries = logLines().map((l) => JSON.parse(l) as { traceId?: string; url?: string; status?: number });
    expect(entries.find((e) => e.url?.endsWith('/products/products.json'))).toMatchObject({ traceId: TRACE, status: 401 });
    expect(entries.find((e) => e.url === '/platform/v1/clock')).toMatchObject({ traceId: refused.headers.get('traceId'), status: 401 });
  });
});
