import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPERATOR_TOKEN, operator, startPlatform, storeWithApp, VERSION, type TestPlatform } from './harness';

let t: TestPlatform;
let token: string;
const shop = () => `${t.origin}/admin/openapi/${VERSION}/merchants/shop.json`;
const definitions = () => `${t.origin}/admin/openapi/${VERSION}/metafield_definition.json`;

beforeAll(async () => {
  t = await startPlatform();
  ({ token } = await storeWithApp(t, 'transport', ['read_store_information', 'write_metafields', 'write_products']));
});
afterAll(() => t.close());

/** A request written byte by byte on a socket: what no HTTP client library would send. */
function raw(request: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(t.port, '127.0.0.1');
    let data = '';
    const done = () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      socket.destroy();
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    };
    socket.on('data', (chunk) => {
      data += chunk.toString('utf8');
      // The answer is complete once its Content-Length bytes are in (the server may keep the connection).
      const [head, body] = data.split('\r\n\r\n');
      const length = /^content-length: (\d+)$/im.exec(head ?? '')?.[1];
      if (body !== undefined && length !== undefined && Buffer.byteLength(body) >= Number(length)) done();
    });
    socket.on('error', reject);
    socket.on('end', done);
    socket.write(request);
  });
}

describe('percent-encoded paths (decisions §1.1, §5, §10)', () => {
  it('are checked as the path the router routes: an encoded operator path still needs the operator token', async () => {
    for (const path of ['/platform/%761/stores/transport', '/%70latform/v1/stores/transport', '/platform/v1/%73tores/transport']) {
      expect((await call(`${t.origin}${path}`)).status).toBe(401);
      const allowed = await call(`${t.origin}${path}`, { token: OPERATOR_TOKEN });
      expect(allowed.status).toBe(200);
      expect(allowed.body.store.handle).toBe('transport');
    }
  });

  it('an encoded Admin API path needs a token, is versioned and counted like the plain one', async () => {
    const path = `${t.origin}/%61dmin/openapi/${VERSION}/merchants/%73hop.json`;
    const anonymous = await call(path);
    expect(anonymous.status).toBe(401);
    const r = await call(path, { token });
    expect(r.status).toBe(200);
    expect(r.body.data.handle).toBe('transport');
    expect(r.headers.get('x-platform-api-version')).toBe(VERSION);
    expect(r.headers.get('x-platform-api-call-limit')).toMatch(/^\d+\/40$/);
  });

  it('a path whose escapes do not decode is an unknown path: 404 with a trace id', async () => {
    for (const path of ['/%zz', `/admin/openapi/${VERSION}/products/%zz`]) {
      const r = await call(`${t.origin}${path}`, { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ errors: 'Not Found' });
      expect(r.headers.get('traceid')).toBeTruthy();
    }
  });
});

describe('requests the HTTP parser refuses (decisions §3.2, §4)', () => {
  it('an unknown method gets an errors body and a trace id', async () => {
    const r = await raw(`FOO /admin/openapi/${VERSION}/merchants/shop.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ errors: 'Unknown HTTP method' });
    expect(r.headers).toMatch(/^traceId: [0-9a-f-]{36}$/m);
  });

  it('headers over the limit get 431 with an errors body and a trace id', async () => {
    const r = await raw(
      `GET /admin/openapi/${VERSION}/products/products.json?fields=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
    expect(r.status).toBe(431);
    expect(JSON.parse(r.body).errors).toMatch(/headers are larger/);
    expect(r.headers).toMatch(/^traceId: /m);
  });

  it('a body over 8 MB is 413 on any method, GET included', async () => {
    const r = await raw(
      `GET /admin/openapi/${VERSION}/merchants/shop.json HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Length: 9000000\r\n\r\n`,
    );
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({ errors: 'Request body is larger than the 8 MB limit' });
  });
});

describe('requests Node would answer without a trace id (decisions §3.2, §4)', () => {
  it('a request without Host (HTTP/1.1) or with an empty one is 400 with an errors body and a trace id', async () => {
    for (const hostLine of ['', 'Host: \r\n']) {
      for (const version of ['HTTP/1.1', 'HTTP/1.0']) {
        const r = await raw(
          `GET /admin/openapi/${VERSION}/products/products.json?limit=1 ${version}\r\n${hostLine}Authorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
        );
        expect(r.status, `${version} ${JSON.stringify(hostLine)}`).toBe(400);
        expect(JSON.parse(r.body)).toEqual({ errors: 'A Host header is required' });
        expect(r.headers).toMatch(/^traceid: [0-9a-f-]{36}$/im);
      }
    }
  });

  it('two Host or two Authorization headers are 400 (ambiguous store or caller), one of each is served', async () => {
    const shopPath = `/admin/openapi/${VERSION}/merchants/shop.json`;
    const ok = await raw(`GET ${shopPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect(ok.status).toBe(200);
    const twoHosts = await raw(
      `GET ${shopPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nhost: other.localhost\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    expect([twoHosts.status, JSON.parse(twoHosts.body)]).toEqual([400, { errors: 'The request has more than one Host header' }]);
    expect(twoHosts.headers).toMatch(/^traceid: [0-9a-f-]{36}$/im);
    const twoTokens = await raw(
      `GET ${shopPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer nope\r\nConnection: close\r\n\r\n`,
    );
    expect([twoTokens.status, JSON.parse(twoTokens.body)]).toEqual([400, { errors: 'The request has more than one Authorization header' }]);
  });

  it('the health endpoints answer without Host (probes speaking HTTP/1.0)', async () => {
    const r = await raw('GET /healthz HTTP/1.0\r\n\r\n');
    expect(r.status).toBe(200);
  });

  it('CONNECT gets 400 with an errors body and a trace id, not a silently closed socket', async () => {
    for (const target of [`/admin/openapi/${VERSION}/merchants/shop.json`, '127.0.0.1:443']) {
      const r = await raw(`CONNECT ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ errors: 'CONNECT is not supported: this is not a proxy' });
      expect(r.headers).toMatch(/^traceId: [0-9a-f-]{36}$/m);
    }
  });
});

describe('bodies that are not Unicode JSON (decisions §3.1)', () => {
  const definition = (name: string) =>
    `{"definition":{"owner_resource":"products","namespace":"custom","key":"text_key","type":"boolean","name":"${name}"}}`;

  it('bytes that are not UTF-8 are 400, not stored with replacement characters', async () => {
    const body = Buffer.concat([Buffer.from(definition('a')).subarray(0, -3), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);
    const head =
      `POST /admin/openapi/${VERSION}/metafield_definition.json HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const r = await raw(Buffer.concat([Buffer.from(head), body]));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).errors).toMatch(/not valid UTF-8/);
  });

  it('an unpaired surrogate escape is 400', async () => {
    const r = await call(definitions(), { token, rawBody: definition('a\\ud800b'), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/unpaired UTF-16 surrogate/);
  });

  it('a NUL character in a body or a query is 400 on every database (PostgreSQL cannot store it), nothing written', async () => {
    const before = await t.db.prisma.metafieldDefinition.count();
    for (const body of [
      definition('a\\u0000b'),
      `{"definition":{"owner_resource":"products","namespace":"custom","key":"nul_key","type":"boolean","name":"n","x\\u0000":1}}`,
    ]) {
      const r = await call(definitions(), { token, rawBody: body, headers: { 'content-type': 'application/json' } });
      expect(r.status, r.text).toBe(400);
      expect(r.body.errors).toMatch(/NUL character/);
      expect(r.headers.get('traceid')).toBeTruthy();
    }
    const product = await operator(t).call('/stores/transport/products', {
      rawBody: '{"product":{"title":"a\\u0000"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(product.status).toBe(400);
    expect(await t.db.prisma.metafieldDefinition.count()).toBe(before);
    for (const query of ['namespace=%00', 'key=a%00b', 'since_id=1%00']) {
      const r = await call(`${t.origin}/admin/openapi/${VERSION}/metafield_definitions.json?${query}`, { token });
      expect(r.status, query).toBe(400);
      expect(r.body.errors).toMatch(/%00/);
    }
  });

  it('nesting past 64 levels is 400 (never a stack overflow)', async () => {
    const deep = `{"product":{"title":"deep","combined_listing":{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}}}`;
    const r = await operator(t).call('/stores/transport/products', { rawBody: deep, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/nested deeper than 64 levels/);
  });
});

describe('duplicate keys in a body (issue 8 finding 6)', () => {
  it('are 400 naming the key, on Admin and operator routes, and nothing is written', async () => {
    const before = await t.db.prisma.metafieldDefinition.count();
    const twice = `{"definition":{"owner_resource":"products","namespace":"custom","key":"dup_key","type":"boolean","name":"a","name":"b"}}`;
    const r = await call(definitions(), { token, rawBody: twice, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toBe("Malformed JSON body: the key 'name' appears twice in one object");
    expect(r.headers.get('traceid')).toMatch(/^[0-9a-f-]{36}$/);
    const escaped = `{"definition":{"owner_resource":"products","namespace":"custom","key":"dup_key","type":"boolean","name":"a","\\u006eame":"b"}}`;
    expect((await call(definitions(), { token, rawBody: escaped, headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect(await t.db.prisma.metafieldDefinition.count()).toBe(before);
    const store = await operator(t).call('/stores', {
      rawBody: '{"store":{"handle":"dupe1","handle":"dupe2","name":"x"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(store.status).toBe(400);
    expect(store.body.errors).toContain("'handle'");
  });
});

describe('Authorization header', () => {
  it('of another form than Bearer <token> is 401 saying so', async () => {
    const r = await call(shop(), { headers: { authorization: `Bearer ${token} extra` } });
    expect(r.status).toBe(401);
    expect(r.body.errors).toMatch(/Malformed Authorization header/);
  });
});

describe('restricted stores still show the call limit (decisions §7.3)', () => {
  it('on 402 and 423', async () => {
    const { token: restricted } = await storeWithApp(t, 'restricted', ['read_store_information']);
    for (const status of ['frozen', 'closed'] as const) {
      await operator(t).call('/stores/restricted', { method: 'PATCH', body: { store: { status } } });
      const r = await call(shop(), { token: restricted });
      expect(r.status).toBe(status === 'frozen' ? 402 : 423);
      expect(r.headers.get('x-platform-api-call-limit')).toMatch(/^\d+\/40$/);
    }
  });
});

describe('writes whose answer would exceed 8 MB (decisions §3.4)', () => {
  it('are refused with 422 before anything is written', async () => {
    await operator(t).createStore('echo');
    const src = `https://cdn.example.com/${'m'.repeat(1_500_000)}.png`;
    const products = [1, 2, 3].map((n) => ({ title: `Big ${n}`, media: [{ src, content_type: 'IMAGE' }] }));
    const r = await operator(t).call('/stores/echo/products', { body: { products } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^products: the answer would exceed 8 MB/);
    const { token: reader } = await operator(t)
      .createPrivateApp('echo', ['read_products'])
      .then((a) => ({ token: a.access_token }));
    const listing = await call(`${t.origin}/admin/openapi/${VERSION}/products/products.json`, { token: reader });
    expect(listing.body.products).toEqual([]);
  });
});

describe('bodies with a great many problems (decisions §4)', () => {
  it('are answered 422 naming the first ones, not with a message larger than any answer may be', async () => {
    const set = await call(`${t.origin}/admin/openapi/${VERSION}/metafields_set.json`, {
      token,
      body: { metafields: Array.from({ length: 400_000 }, () => null) },
    });
    expect(set.status).toBe(422);
    expect(set.text.length).toBeLessThan(20_000);
    expect(set.body.errors).toMatch(/^metafields/);

    const products = await operator(t).call('/stores/transport/products', { body: { products: Array.from({ length: 200_000 }, () => 1) } });
    expect(products.status).toBe(422);
    expect(products.text.length).toBeLessThan(20_000);
  });
});
