import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from './api-process';
import { call, freshDatabase } from './harness';

/*
 * Issue 15: with OTEL_EXPORTER_OTLP_ENDPOINT set, each request's span goes over OTLP/HTTP to the
 * collector, under the request's traceId (the caller's trace when it sent traceparent). The
 * collector here is a real HTTP server receiving what the exporter sends.
 */

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

let collector: Server;
const spans: Span[] = [];
let api: ApiProcess;
let drop: () => Promise<void>;
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

beforeAll(async () => {
  collector = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const sent = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
        for (const resource of sent.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const port = (collector.address() as { port: number }).port;
  const database = await freshDatabase();
  drop = database.drop;
  api = await startApiProcess(database.url, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '100' });
});
afterAll(async () => {
  await api?.stop();
  await drop?.();
  await new Promise((resolve) => collector?.close(resolve));
});

async function spanOf(traceId: string): Promise<Span> {
  for (let i = 0; i < 100; i++) {
    const found = spans.find((s) => s.traceId === traceId);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no span of trace ${traceId} reached the collector (${spans.length} spans did)`);
}

describe('OpenTelemetry export (issue 15)', () => {
  it("sends the request's span under the caller's trace, as a child of the caller's span", async () => {
    const r = await call(`${api.origin}/healthz`, { headers: { traceparent: `00-${TRACE}-${CALLER_SPAN}-01` } });
    expect(r.headers.get('traceId')).toBe(TRACE);
    const span = await spanOf(TRACE);
    expect(span).toMatchObject({ name: 'GET /healthz', parentSpanId: CALLER_SPAN, kind: 2 });
  });

  it('sends a request without traceparent under the traceId it was answered with', async () => {
    const r = await call(`${api.origin}/admin/openapi/v20260901/products/products.json`);
    expect(r.status).toBe(401);
    const span = await spanOf(r.headers.get('traceId')!.replace(/-/g, ''));
    expect(span.name).toBe('GET /admin/openapi/:version/products/products.json');
  });
});
