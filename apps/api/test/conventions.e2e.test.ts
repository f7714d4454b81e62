import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPERATOR_TOKEN, operator, startPlatform, storeWithApp, VERSION, type TestPlatform } from './harness';

let t: TestPlatform;
let token: string;

beforeAll(async () => {
  t = await startPlatform();
  ({ token } = await storeWithApp(t, 'conventions'));
  await operator(t).createProducts('conventions', [{ title: 'One' }]);
});
afterAll(() => t.close());

const admin = (path: string, version = VERSION) => `${t.origin}/admin/openapi/${version}${path}`;

describe('trace id (decisions §3.2)', () => {
  it('is on success, error, unknown-route and unknown-version responses, and unique per request', async () => {
    const answers = await Promise.all([
      call(admin('/products/products.json'), { token }),
      call(admin('/products/products.json'), { token: 'nope' }),
      call(`${t.origin}/nowhere`),
      call(admin('/products/products.json', 'v2026'), { token }),
      call(`${t.origin}/healthz`),
    ]);
    const ids = answers.map((a) => a.headers.get('traceId'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('responses', () => {
  it('are application/json; charset=utf-8', async () => {
    const r = await call(admin('/products/products.json'), { token });
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('unknown routes are 404 {"errors":"Not Found"} (decisions §1.1)', async () => {
    for (const path of ['/nowhere', '/admin/openapi/v20260901/nothing.json']) {
      const r = await call(`${t.origin}${path}`, { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ errors: 'Not Found' });
    }
    const r = await call(`${t.origin}/platform/v1/nothing`, { token: OPERATOR_TOKEN });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ errors: 'Not Found' });
  });

  it('a known path with a method it does not take is 405 with Allow, on the Admin, operator and OAuth APIs (decisions §4)', async () => {
    const cases: [string, string, string, string | undefined][] = [
      ['DELETE', admin('/products/products.json'), 'GET, HEAD', token],
      ['PATCH', admin('/metafield_definition.json'), 'GET, HEAD, POST, PUT, DELETE', token],
      ['POST', admin('/webhooks/1.json'), 'GET, HEAD, PUT, DELETE', token],
      ['GET', `${t.origin}/platform/v1/apps`, 'POST', OPERATOR_TOKEN],
      ['GET', `${t.origin}/platform/v1/stores`, 'POST', OPERATOR_TOKEN],
      ['DELETE', `${t.origin}/platform/v1/stores/conventions`, 'GET, HEAD, PATCH', OPERATOR_TOKEN],
      ['PUT', `${t.origin}/platform/v1/clock`, 'GET, HEAD, POST', OPERATOR_TOKEN],
      ['GET', `${t.origin}/admin/oauth/token/create`, 'POST', undefined],
      ['PUT', `${t.origin}/admin/oauth/token/refresh`, 'POST', undefined],
      ['HEAD', `${t.origin}/admin/oauth/token/cancel`, 'POST', undefined],
      ['DELETE', `${t.origin}/admin/oauth/authorize?appKey=x`, 'GET, HEAD, POST', undefined],
      ['PUT', `${t.origin}/admin/oauth-web/`, 'GET, HEAD', undefined],
    ];
    for (const [method, url, allow, bearer] of cases) {
      const r = await call(url, { method, token: bearer });
      expect(r.status, `${method} ${url}`).toBe(405);
      expect(r.headers.get('allow'), `${method} ${url}`).toBe(allow);
      expect(r.headers.get('traceId')).toBeTruthy();
      if (method !== 'HEAD') expect(r.body.errors, `${method} ${url}`).toBe(`Method Not Allowed: this path takes ${allow}`);
    }
    // The OAuth token calls answer in their envelope (decisions §5.2), errors beside it.
    const oauth = await call(`${t.origin}/admin/oauth/token/create`);
    expect(oauth.body).toMatchObject({ code: 405, message: 'Method Not Allowed: this path takes POST', data: null });
  });

  it('an empty body where one is required is 422 `body: required`, in the same words on every route (issue 43)', async () => {
    const scopes = ['write_products', 'write_metafields', 'read_inventory', 'read_fulfillments'];
    const { admin: adminCall } = await storeWithApp(t, 'bodies', scopes);
    const [product] = await operator(t).createProducts('bodies', [{ title: 'P' }]);
    const answers = [
      await adminCall('/metafield_definition.json', { method: 'POST' }),
      await adminCall('/metafield_definition.json', { method: 'PUT' }),
      await adminCall('/webhooks.json', { method: 'POST' }),
      await adminCall('/metafields_set.json', { method: 'POST' }),
      await adminCall(`/products/${product}/metafields.json`, { method: 'POST' }),
      await adminCall(`/products/${product}/resource_feedback.json`, { method: 'POST' }),
      await operator(t).call('/stores', { method: 'POST' }),
      await operator(t).call('/apps', { method: 'POST' }),
      await operator(t).call('/stores/bodies', { method: 'PATCH' }),
      await operator(t).call('/stores/bodies/metaobject_definitions', { method: 'POST' }),
    ];
    expect(answers.map((a) => `${a.status} ${a.text}`)).toEqual(answers.map(() => '422 {"errors":"body: required"}'));
  });

  it('the operator API tells nothing, not even which routes exist, without its token (decisions §10)', async () => {
    for (const path of ['/platform/v1/nothing', '/platform/v1/stores/x', '/platform']) {
      const r = await call(`${t.origin}${path}`, { token });
      expect(r.status).toBe(401);
      expect(r.headers.get('traceId')).toBeTruthy();
    }
  });
});

describe('versions (decisions §2)', () => {
  it('serves a supported version and names it in X-Platform-API-Version', async () => {
    const r = await call(admin('/products/products.json', 'v20260601'), { token });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-platform-api-version')).toBe('v20260601');
  });

  it('answers a malformed version with 404 listing the supported versions', async () => {
    for (const v of ['2026-09', 'v2026091', 'v20260231', 'latest']) {
      const r = await call(admin('/products/products.json', v), { token });
      expect(r.status).toBe(404);
      expect(r.body.errors).toContain(`API version '${v}' is not supported`);
      expect(r.body.errors).toContain('v20260901');
    }
  });

  it('answers a well-formed but unreleased version with 404', async () => {
    const r = await call(admin('/products/products.json', 'v20261201'), { token });
    expect(r.status).toBe(404);
    expect(r.body.errors).toContain("API version 'v20261201' is not supported");
  });

  it('falls a retired version forward to the oldest supported one', async () => {
    const r = await call(admin('/products/products.json', 'v20230101'), { token });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-platform-api-version')).toBe('v20241201');
  });
});

describe('request bodies (decisions §3.1)', () => {
  const url = () => `${t.origin}/platform/v1/stores`;
  const body = JSON.stringify({ store: { handle: 'bodies', name: 'Bodies' } });

  it('refuses a content type other than JSON with 400', async () => {
    const r = await call(url(), { token: 'test-operator-token-0123456789', rawBody: body, headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/Content-Type/);
  });

  it('refuses a charset other than utf-8 with 400', async () => {
    const r = await call(url(), {
      token: 'test-operator-token-0123456789',
      rawBody: body,
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
    });
    expect(r.status).toBe(400);
  });

  it('refuses malformed JSON with 400', async () => {
    const r = await call(url(), {
      token: 'test-operator-token-0123456789',
      rawBody: '{"store": {',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/Malformed JSON/);
  });

  it('accepts an empty body whatever its content type', async () => {
    const r = await call(`${t.origin}/platform/v1/clock`, {
      method: 'GET',
      token: 'test-operator-token-0123456789',
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).toBe(200);
  });

  it('a Content-Type Fastify cannot parse (a list, a stray comma) is the same 400 as any wrong type, not a 415 (decisions §3.1, §4)', async () => {
    for (const contentType of ['application/json, text/plain', 'application/json,', 'application/json (x)']) {
      const headers = { 'content-type': contentType };
      const a = await call(admin('/products/1/resource_feedback.json'), {
        method: 'POST',
        token,
        rawBody: '{"resource_feedback":{}}',
        headers,
      });
      expect([a.status, a.body.errors], contentType).toEqual([
        400,
        `Content-Type must be application/json; charset=utf-8 (got '${contentType}')`,
      ]);
      expect(a.headers.get('traceid')).toBeTruthy();
      const o = await call(`${t.origin}/platform/v1/stores`, {
        method: 'POST',
        token: 'test-operator-token-0123456789',
        rawBody: '{}',
        headers,
      });
      expect(o.status, contentType).toBe(400);
    }
  });

  it('refuses a GET body of another type than JSON (400) on Admin and operator routes, as on every method', async () => {
    const headers = { 'content-type': 'text/plain' };
    const a = await call(admin('/products/products.json'), { method: 'GET', token, rawBody: 'abc', headers });
    expect(a.status).toBe(400);
    expect(a.body.errors).toBe("Content-Type must be application/json; charset=utf-8 (got 'text/plain')");
    const o = await call(`${t.origin}/platform/v1/clock`, {
      method: 'GET',
      token: 'test-operator-token-0123456789',
      rawBody: 'abc',
      headers,
    });
    expect(o.status).toBe(400);
    // A JSON body on a GET is read by nobody, and refused by nobody.
    const json = await call(admin('/products/products.json'), {
      method: 'GET',
      token,
      rawBody: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(json.status).toBe(200);
  });

  it('refuses a body over 8 MB with 413 and loses nothing', async () => {
    const big = JSON.stringify({ product: { title: 'x', body_html: 'a'.repeat(8 * 1024 * 1024) } });
    const r = await call(`${t.origin}/platform/v1/stores/conventions/products`, {
      token: 'test-operator-token-0123456789',
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    expect(r.body.errors).toMatch(/8 MB/);
    const list = await call(admin('/products/products.json'), { token });
    expect(list.body.products).toHaveLength(1);
  });

  it('decides a too-large body after the route and the version: 404 for an unknown one, 413 with the version header', async () => {
    const big = JSON.stringify({ definition: { name: 'a'.repeat(8 * 1024 * 1024) } });
    const headers = { 'content-type': 'application/json' };
    const unknown = await call(`${t.origin}/admin/openapi/v20991201/metafield_definition.json`, { token, rawBody: big, headers });
    expect(unknown.status).toBe(404);
    const nowhere = await call(`${t.origin}/nowhere`, { rawBody: big, headers });
    expect(nowhere.status).toBe(404);
    const tooLarge = await call(admin('/metafield_definition.json'), { token, rawBody: big, headers });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('x-platform-api-version')).toBe(VERSION);
  });

  it('answers a well-formed body that breaks the schema with 422 naming the field', async () => {
    const r = await call(url(), { token: 'test-operator-token-0123456789', body: { store: { name: 'No handle' } } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/store\.handle/);
  });
});

describe('health and docs (decisions §12.3)', () => {
  it('serves /healthz, /readyz, /metrics', async () => {
    expect((await call(`${t.origin}/healthz`)).status).toBe(200);
    expect((await call(`${t.origin}/readyz`)).body).toEqual({ status: 'ready' });
    const metrics = await fetch(`${t.origin}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(await metrics.text()).toContain('process_cpu_user_seconds_total');
  });

  it('counts requests in /metrics by route pattern and status, never by raw URL', async () => {
    await call(`${t.origin}/admin/openapi/${VERSION}/products/products.json?limit=1`, { token });
    await call(`${t.origin}/admin/openapi/${VERSION}/products/products.json?limit=0`, { token });
    const text = await (await fetch(`${t.origin}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
    const route = '/admin/openapi/:version/products/products.json';
    expect(text).toMatch(new RegExp(`http_requests_total\\{method="GET",route="${route}",status="200"\\} [1-9]`));
    expect(text).toMatch(new RegExp(`http_requests_total\\{method="GET",route="${route}",status="400"\\} [1-9]`));
    expect(text).toContain('http_request_duration_seconds_bucket');
    expect(text).not.toContain('limit=');
  });

  it('serves the OpenAPI document generated from the contract, and the reference page with local assets', async () => {
    const doc = await call(`${t.origin}/openapi.json`);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toContain('/admin/openapi/{version}/products/products.json');
    const page = await fetch(`${t.origin}/docs`);
    const html = await page.text();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    const asset = await fetch(`${t.origin}/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });
});
