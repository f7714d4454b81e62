import { connect } from 'node:net';
import { adminContract, operatorContract } from '@platform/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, storeWithApp, VERSION, type TestPlatform } from './harness';

/**
 * Issue 8, finding 1: a request line in absolute form (`GET http://x/platform/v1/... HTTP/1.1`) was
 * routed by its path while the operator check, version resolution and link building read the raw
 * target. Every decision must follow the route the router matched; a target that is not
 * origin-form is refused (400) before anything else.
 */
let t: TestPlatform;
let token: string;

beforeAll(async () => {
  t = await startPlatform();
  ({ token } = await storeWithApp(t, 'target', [
    'read_products',
    'write_products',
    'read_store_information',
    'read_metafields',
    'write_metafields',
  ]));
});
afterAll(() => t.close());

/** One request with a request line written as given. */
function send(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(t.port, '127.0.0.1');
    let data = '';
    const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${t.port}`, 'Connection: close'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (body) lines.push('Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`);
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', rest = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body: rest });
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

const authorities = ['http://x', 'HTTPS://x', 'https://127.0.0.1:1', 'Http://target.localhost', 'hTtP://evil.example:8080'];

function concretePath(path: string): string {
  return path.replace(':version', VERSION).replace(/:[A-Za-z_]+/g, '1');
}

describe('absolute-form request targets (issue 8 finding 1)', () => {
  it('every operator route refuses them without the token: never 2xx, never the resource', async () => {
    const routes = Object.values(operatorContract) as { method: string; path: string }[];
    expect(routes.length).toBeGreaterThan(8);
    for (const route of routes) {
      for (const authority of authorities) {
        const body = route.method === 'GET' || route.method === 'DELETE' ? '' : '{"store":{"handle":"zzz","name":"x"}}';
        const r = await send(route.method, `${authority}${concretePath(route.path)}`, {}, body);
        expect([400, 401], `${route.method} ${authority}${route.path} -> ${r.status} ${r.body}`).toContain(r.status);
        expect(r.head).toMatch(/\r\ntraceId: [0-9a-f-]{36}/i);
        expect(JSON.parse(r.body)).toHaveProperty('errors');
      }
    }
  });

  it("the reviewer's two requests: no store read, no app created", async () => {
    const read = await send('GET', 'http://x/platform/v1/stores/target');
    expect(read.status).toBe(400);
    expect(read.body).not.toContain('"handle"');
    const create = await send(
      'POST',
      'http://x/platform/v1/apps',
      {},
      '{"app":{"name":"p","kind":"private","scopes":["write_products"],"store_handle":"target"}}',
    );
    expect(create.status).toBe(400);
    expect(create.body).not.toContain('access_token');
  });

  it('Admin routes refuse them too, with a token: an unknown version is never answered 200', async () => {
    const routes = (Object.values(adminContract) as { method: string; path: string }[]).filter((r) => r.method === 'GET');
    for (const route of routes) {
      for (const version of [VERSION, 'v99999999']) {
        for (const authority of authorities) {
          const r = await send('GET', `${authority}${concretePath(route.path).replace(VERSION, version)}?id=1`, {
            Authorization: `Bearer ${token}`,
          });
          expect(r.status, `${authority}${route.path} ${version}`).toBe(400);
          expect(JSON.parse(r.body).errors).toMatch(/origin-form|path/i);
        }
      }
    }
  });

  it('the asterisk form and other targets that do not start with / are refused as well', async () => {
    for (const target of ['*', 'platform/v1/stores/target', 'x:/platform/v1/stores/target']) {
      const r = await send('GET', target);
      expect([400, 404], target).toContain(r.status);
      expect(r.body).not.toContain('"handle"');
    }
  });

  it('origin-form requests keep working: the store, an Admin listing with its version header', async () => {
    const r = await send('GET', `/admin/openapi/${VERSION}/merchants/shop.json`, { Authorization: `Bearer ${token}` });
    expect(r.status).toBe(200);
    expect(r.head).toMatch(/x-platform-api-version: v20260901/i);
    const unknown = await send('GET', `/admin/openapi/v99999999/merchants/shop.json`, { Authorization: `Bearer ${token}` });
    expect(unknown.status).toBe(404);
  });
});
