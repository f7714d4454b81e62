/* eslint-disable @typescript-eslint/no-explicit-any -- the document and the answers are arbitrary JSON */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPERATOR_TOKEN, operator, startPlatform, VERSION, type TestPlatform } from './harness';
import { arbitraryOf, schemaValidator, type Schema } from './openapi-arbitraries';
import { refusalAboutState } from './openapi-refusals';

/*
 * decisions §12.9: a tester driven by GET /openapi.json alone. Every operation is called with requests
 * the document allows (fast-check arbitraries of its schemas, openapi-arbitraries.ts), on a seeded
 * store; the test fails on a 5xx, on an answer the document does not declare or whose body or headers
 * break it, and on a 400/422 whose refusal is about the request's shape rather than the state of the
 * data (openapi-refusals.ts lists the refusals that are about the state, each with its reason).
 * Seeded ids are offered beside the document's own values for path parameters, so requests reach
 * past 404. Bounded: RUNS requests an operation, one seed (FC_SEED, tooling/vitest/fast-check-seed.mjs).
 */

const RUNS = 20;
const HANDLE = 'oas';

let t: TestPlatform;
let document: Schema;
let validate: ReturnType<typeof schemaValidator>;
let adminToken: string;
/** Seeded values for path parameters, by parameter name or `path parameter`. */
const known: Record<string, string[]> = {};

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '1000000' });
  const op = operator(t);
  await op.createStore(HANDLE);
  const app = await op.createPrivateApp(HANDLE, [
    'write_products',
    'write_inventory',
    'write_fulfillments',
    'write_metafields',
    'read_store_information',
  ]);
  adminToken = app.access_token;
  const products = await op.createProducts(HANDLE, [{ title: 'One', variants: [{ title: 'A' }] }, { title: 'Two' }]);
  const admin = (path: string, init: Parameters<typeof call>[1] = {}) =>
    call(`${t.origin}/admin/openapi/${VERSION}${path}`, { token: adminToken, ...init });
  const definition = await admin('/metafield_definition.json', {
    body: { definition: { owner_resource: 'products', namespace: 'custom', key: 'size', name: 'Size', type: 'single_line_text_field' } },
  });
  const value = await admin(`/products/${products[0]}/metafields.json`, {
    body: { metafield: { namespace: 'custom', key: 'size', type: 'single_line_text_field', value: 'M' } },
  });
  const webhook = await admin('/webhooks.json', {
    body: { webhook: { topic: 'inventory_items/update', address: 'https://hooks.example.com/in' } },
  });
  const listed = await admin('/products/products.json');
  const inventoryItem = String(listed.body.products[0].variants[0].inventory_item_id);
  await op.call(`/stores/${HANDLE}/inventory_items/${inventoryItem}`, { method: 'PUT', body: { inventory_item: { sku: 'S-1' } } });
  const deliveries = await op.call(`/stores/${HANDLE}/webhooks/deliveries`);
  const order = await op.call(`/stores/${HANDLE}/fulfillment_orders`, { body: {} });
  const metaobjectDefinition = await op.call(`/stores/${HANDLE}/metaobject_definitions`, {
    body: { metaobject_definition: { type: 'colour', name: 'Colour' } },
  });
  const custom = await op.call('/apps', {
    body: { app: { name: 'Custom', kind: 'custom', scopes: ['read_products'], store_handle: HANDLE } },
  });
  for (const r of [definition, value, webhook, deliveries, order, metaobjectDefinition, custom]) expect(r.status, r.text).toBeLessThan(300);
  Object.assign(known, {
    version: [VERSION],
    handle: [HANDLE],
    appId: [String(app.app.id), String(custom.body.app.id)],
    product_id: products,
    metafieldId: [String(value.body.metafield.id)],
    definitionId: [String(definition.body.definition.id)],
    'products/{id}': products,
    'webhooks/{id}': [String(webhook.body.webhook.id)],
    'inventory_items/{id}': [inventoryItem],
    'fulfillment_orders/{id}': [String(order.body.fulfillment_order.id)],
    'deliveries/{id}': deliveries.body.deliveries.map((d: { id: string }) => d.id),
    'metaobject_definitions/{id}': [String(metaobjectDefinition.body.metaobject_definition.id)],
  });
  const served = await call(`${t.origin}/openapi.json`);
  document = served.body;
  validate = schemaValidator(document);
}, 120_000);
afterAll(() => t?.close());

interface Request {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * Path parameters: a seeded value mostly, the document's own values too. A parameter is known by its
 * name, or an `{id}` by the literal segment beside it (`/products/{id}`, `/{id}/webhooks.json`).
 */
function pathArbitrary(path: string, parameter: Schema): fc.Arbitrary<unknown> {
  const name = parameter['name'] as string;
  const segments = path.split('/');
  const at = segments.findIndex((segment) => segment.startsWith(`{${name}}`));
  const beside = [segments[at - 1], segments[at + 1]].find((s) => s !== undefined && !s.startsWith('{'))?.replace(/\.json$/, '');
  const seeded = (name === 'id' && beside ? known[`${beside}/{id}`] : known[name]) ?? [];
  const own = arbitraryOf(document, parameter['schema'] ?? {}, validate);
  return seeded.length > 0 ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...seeded) }, { weight: 1, arbitrary: own }) : own;
}

let keys = 0;

/** Query parameters: the document's values; the definition id of `?id=` seeded too. */
function queryArbitrary(path: string, parameter: Schema): fc.Arbitrary<unknown> {
  const own = arbitraryOf(document, parameter['schema'] ?? {}, validate);
  // Most cursors a client sends come from a link header; one in four here is the document's own form.
  if (parameter['name'] === 'page_info') return fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: own });
  const seeded = parameter['name'] === 'id' && path.endsWith('/metafield_definition.json') ? known['definitionId'] : undefined;
  return seeded ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...seeded) }, { weight: 1, arbitrary: own }) : own;
}

function requestArbitrary(path: string, method: string, operation: Schema): fc.Arbitrary<Request> {
  const parameters = ((operation['parameters'] ?? []) as Schema[]).map((p) =>
    p['$ref'] ? document.components.parameters[p['$ref'].split('/').pop()] : p,
  );
  const of = (where: string) => parameters.filter((p) => p['in'] === where);
  const record = (list: Schema[], arb: (p: Schema) => fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> =>
    fc.record(Object.fromEntries(list.map((p) => [p['name'] as string, arb(p)])), {
      requiredKeys: list.filter((p) => p['required']).map((p) => p['name'] as string) as never[],
    }) as fc.Arbitrary<Record<string, unknown>>;
  const bodySpec = operation['requestBody']?.content?.['application/json'];
  const body = bodySpec ? arbitraryOf(document, bodySpec.schema, validate) : fc.constant(undefined);
  const withBody = bodySpec && !operation['requestBody'].required ? fc.option(body, { nil: undefined }) : body;
  return fc
    .record({
      path: record(of('path'), (p) => pathArbitrary(path, p)),
      query: record(of('query'), (p) => queryArbitrary(path, p)),
      headers: record(of('header'), (p) =>
        // A key names one request for 24 hours: a tester reusing keys across different requests
        // would meet only the 422 of a reused key (docs/idempotency.md). Fresh keys, of the document's form.
        p['name'] === 'Idempotency-Key'
          ? fc.constant('key').map((k) => `${k}-${(keys += 1)}`)
          : arbitraryOf(document, p['schema'] ?? {}, validate),
      ),
      body: withBody,
    })
    .map(({ path: params, query, headers, body }) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String((params as any)[name]))),
      query,
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
      body,
    }));
}

function tokenOf(operation: Schema): string | undefined {
  const scheme = Object.keys((operation['security'] as Schema[] | undefined)?.[0] ?? {})[0];
  return scheme === 'accessToken' ? adminToken : scheme === 'operatorToken' ? OPERATOR_TOKEN : undefined;
}

async function send(request: Request, operation: Schema) {
  const given = Object.entries(request.query).filter(([, v]) => v !== undefined);
  const search = new URLSearchParams(given.map(([k, v]) => [k, String(v)])).toString();
  return call(`${t.origin}${request.path}${search ? `?${search}` : ''}`, {
    method: request.method,
    token: tokenOf(operation),
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
}

const TRANSPORT = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * The answer, sent again once when the connection failed under it: a kept-alive connection the
 * server closed as the request went out (every POST carries a fresh Idempotency-Key, so a second
 * send is safe), or a request refused before its body was read (an unknown version: 404), whose
 * connection may close while the body is still being written. Undefined when both sends lost the
 * answer that way: the client saw no answer, not a wrong one.
 */
async function sendOnce(request: Request, operation: Schema) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send(request, operation);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!TRANSPORT.has(code)) throw error;
      if (attempt === 1) return undefined;
    }
  }
}

/** What is wrong with an answer, by the document; undefined when nothing. */
function breaches(operation: Schema, request: Request, answer: Awaited<ReturnType<typeof call>>): string | undefined {
  if (answer.status >= 500) return `a ${answer.status}`;
  const declared = operation['responses'][String(answer.status)];
  if (!declared) return `status ${answer.status} is not declared`;
  const schema = declared.content?.['application/json']?.schema;
  if (schema && !validate(schema)(answer.body)) return `the body breaks the declared schema`;
  for (const [name, header] of Object.entries((declared.headers ?? {}) as Record<string, Schema>)) {
    const spec = header['$ref'] ? document.components.headers[header['$ref'].split('/').pop()] : header;
    const value = answer.headers.get(name);
    if (value === null) {
      if (spec.required) return `the required header ${name} is missing`;
      continue;
    }
    if (!validate(spec.schema)(value)) return `the header ${name}: ${value} breaks its schema`;
  }
  if ((answer.status === 400 || answer.status === 422) && !refusalAboutState(operation['operationId'], request, answer.body)) {
    return `a ${answer.status} for a request the document allows, not about the state of the data`;
  }
  return undefined;
}

/**
 * Operations that change what the others need run last: deletes, a product's PATCH (new variants
 * replace the inventory items the inventory update names), the store's status, the app, the clock.
 */
const LAST = [
  'deleteWebhook',
  'deleteWebhookAlias',
  'deleteProductMetafield',
  'deleteMetafieldDefinition',
  'updateProduct',
  'updateStore',
  'deleteApp',
  'setClock',
];

function operations(): [string, string, Schema][] {
  const all = Object.entries(document.paths as Record<string, Record<string, Schema>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => [path, method, operation] as [string, string, Schema]),
  );
  const rank = (op: Schema) => LAST.indexOf(op['operationId']);
  return all.sort((a, b) => rank(a[2]) - rank(b[2]));
}

describe('requests GET /openapi.json allows (decisions §12.9)', () => {
  it('are answered as the document says, and refused only for the state of the data', async () => {
    const ops = operations();
    expect(ops.length).toBe(47);
    const failures: string[] = [];
    const statuses: Record<string, Record<number, number>> = {};
    for (const [path, method, operation] of ops) {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(path, method, operation), async (request) => {
          const answer = await sendOnce(request, operation);
          if (answer === undefined) return;
          // OAS_DEBUG=1 prints every refusal, for a reader judging what the run reached.
          if (process.env['OAS_DEBUG'] && answer.status >= 400)
            console.log(`${operation['operationId']} ${answer.status} ${answer.text.slice(0, 160)} ${request.path}`);
          const seen = (statuses[operation['operationId']] ??= {});
          seen[answer.status] = (seen[answer.status] ?? 0) + 1;
          const breach = breaches(operation, request, answer);
          if (breach) {
            failures.push(
              `${operation['operationId']}: ${breach}\n  ${JSON.stringify(request)}\n  -> ${answer.status} ${answer.text.slice(0, 300)}`,
            );
          }
        }),
        { numRuns: RUNS },
      );
    }
    // What the run reached, for a reader judging its reach (a test that met only 404s would prove little).
    console.log(
      Object.entries(statuses)
        .map(([id, by]) => `${id}: ${JSON.stringify(by)}`)
        .join('\n'),
    );
    expect(failures).toEqual([]);
  }, 300_000);
});
