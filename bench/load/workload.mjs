// The mixed workload of bench/load: `connections` virtual users, each with one request in flight on
// a connection of its own (closed loop), picking an action by weight until the time is up. Every
// request is timed from its start to its last body byte and judged against the statuses its action
// asks for; anything else (a 5xx, an unexpected 4xx, a 4xx without its {"errors"} body or traceId
// header, a network error) is counted as unexpected and a few of each kind are kept for the report.
import { Pool } from 'undici';

export const LISTING_FIELDS = 'id,title,updated_at';

/** Metafield definitions the workload writes values against (fixtures create them). */
export const DEFINITIONS = [
  {
    namespace: 'load',
    key: 'code',
    name: 'Code',
    type: 'single_line_text_field',
    validations: [
      { name: 'regex', value: '^[A-Z]{2,4}-[0-9]{3,6}$' },
      { name: 'max', value: '12' },
    ],
  },
  {
    namespace: 'load',
    key: 'rank',
    name: 'Rank',
    type: 'number_integer',
    validations: [
      { name: 'min', value: '1' },
      { name: 'max', value: '1000' },
    ],
  },
];

const int = (n) => Math.floor(Math.random() * n);
/** Unique inventory item costs (0.01, 0.02, ...): an event's body names the request that wrote it. */
let costs = 0;
/** The cost an event body or a request carries, as the key of answeredAt. */
export const costKey = (cost) => Number(cost).toFixed(2);
const pick = (list) => list[int(list.length)];
const GOOD = { code: () => `${pick(['AB', 'XYZ', 'QRST'])}-${100 + int(999_900)}`, rank: () => String(1 + int(1000)) };
// Each breaks a different check: the regex, the length bound with the regex, the basic integer
// format (the rules never run), the upper and the lower bound.
const BAD = { code: ['ab-123', 'AB-12', 'ABCDEFGHIJ-1234567'], rank: ['0', '1001', '1.5', 'seven'] };

class OpStats {
  constructor(name, expect) {
    this.name = name;
    this.expect = expect;
    this.latencies = [];
    this.statuses = {};
    this.unexpected = 0;
    this.samples = [];
  }

  record(status, ms, problem, detail) {
    this.latencies.push(ms);
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    if (!problem) return;
    this.unexpected++;
    if (this.samples.length < 3) this.samples.push({ status, problem, ...detail });
  }
}

function parseLink(header) {
  const links = {};
  for (const part of String(header ?? '').split(',')) {
    const m = /<([^>]+)>;\s*rel="([^"]+)"/.exec(part);
    if (m) links[m[2] === 'prev' ? 'previous' : m[2]] = m[1];
  }
  return links;
}

/**
 * Runs the workload for `seconds` against `origin`. `fx`: version, store handle, the app's token,
 * the operator token, hot product ids (writes), the catalogue's first and last product id
 * (listing), definition ids, the webhook subscription id, inventory item ids. Returns per-action
 * stats, the elapsed time and the generator's own CPU time.
 */
export async function runWorkload({ origin, seconds, connections, fx }) {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 4_000 });
  const admin = `/admin/openapi/${fx.version}`;
  const operator = `/platform/v1/stores/${fx.store}`;
  const stats = new Map();
  const op = (name, expect) => {
    if (!stats.has(name)) stats.set(name, new OpStats(name, expect));
    return stats.get(name);
  };
  const counters = { definitionUpdates: 0, productUpdates: 0 };
  /** costKey -> when the 200 of the inventory update that set it arrived (epoch ms). */
  const answeredAt = new Map();

  /** One request; `prefix` is how a good answer's body starts. Resolves to { status, body, headers }. */
  async function send(name, expect, method, path, { body, token = fx.token, prefix } = {}) {
    const stat = op(name, expect);
    const started = performance.now();
    let status = 'network error';
    let headers = {};
    let text = '';
    try {
      const res = await pool.request({
        method,
        path,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = res.statusCode;
      headers = res.headers;
      text = await res.body.text();
    } catch (error) {
      text = String(error?.message ?? error);
    }
    const ms = performance.now() - started;
    let problem;
    if (!expect.includes(status)) problem = 'unexpected status';
    else if (status >= 400) {
      if (!headers.traceid) problem = 'no traceId header';
      else if (!/^\{"errors":"/.test(text)) problem = 'error body is not {"errors":"..."}';
    } else if (prefix && !text.startsWith(prefix)) problem = 'body is not the resource';
    stat.record(status, ms, problem, problem && { request: `${method} ${path}`, traceId: headers.traceid, body: text.slice(0, 300) });
    return { status, text, headers };
  }

  async function listingSession(withFields) {
    const label = withFields ? `GET products.json?fields=${LISTING_FIELDS}&limit=250` : 'GET products.json?limit=50';
    const query = withFields ? `limit=250&fields=${LISTING_FIELDS}` : 'limit=50';
    const deep = Math.random() < 0.5;
    // A deep start lies in the second half of the catalogue; the links then lead on from there.
    const since = deep ? fx.firstProductId + Math.floor((0.5 + Math.random() / 2) * (fx.lastProductId - fx.firstProductId)) : 0;
    let res = await send(
      `${label}, ${deep ? 'deep page (since_id)' : 'first page'}`,
      [200],
      'GET',
      `${admin}/products/products.json?${query}${deep ? `&since_id=${since}` : ''}`,
      { prefix: '{"products":[' },
    );
    for (let hops = 1 + int(4); hops > 0 && res.status === 200; hops--) {
      const links = parseLink(res.headers.link);
      const rel = Math.random() < 0.2 && links.previous ? 'previous' : 'next';
      if (!links[rel]) break;
      const url = new URL(links[rel]);
      res = await send(`${label}, a page from the link header`, [200], 'GET', url.pathname + url.search, { prefix: '{"products":[' });
    }
  }

  function valueWrite(good) {
    const definition = pick(DEFINITIONS);
    const value = good ? GOOD[definition.key]() : pick(BAD[definition.key]);
    return send(
      `POST products/{id}/metafields.json, ${good ? 'valid value' : 'invalid value (422 asked)'}`,
      good ? [200, 201] : [422],
      'POST',
      `${admin}/products/${pick(fx.productIds)}/metafields.json`,
      { body: { metafield: { namespace: definition.namespace, key: definition.key, value } }, prefix: good ? '{"metafield":' : undefined },
    );
  }

  const ACTIONS = [
    [24, () => listingSession(false)],
    [12, () => listingSession(true)],
    [
      8,
      () =>
        send('GET metafield_definition.json?id=', [200], 'GET', `${admin}/metafield_definition.json?id=${pick(fx.definitionIds)}`, {
          prefix: '{"definition":',
        }),
    ],
    [
      4,
      () =>
        send('GET metafield_definitions.json', [200], 'GET', `${admin}/metafield_definitions.json?owner_resource=products&limit=50`, {
          prefix: '{"metafield_definitions":[',
        }),
    ],
    [
      3,
      () => {
        const d = pick(DEFINITIONS);
        return send('PUT metafield_definition.json (description)', [200], 'PUT', `${admin}/metafield_definition.json`, {
          body: {
            definition: {
              owner_resource: 'products',
              namespace: d.namespace,
              key: d.key,
              description: `Load test, update ${++counters.definitionUpdates}`,
            },
          },
          prefix: '{"definition":',
        });
      },
    ],
    [10, () => valueWrite(true)],
    [6, () => valueWrite(false)],
    [
      3,
      () => {
        // Five distinct products: one entry per (owner, namespace, key) in a request.
        const owners = new Set();
        while (owners.size < 5) owners.add(pick(fx.productIds));
        const metafields = [...owners].map((owner_id) => ({
          owner_resource: 'products',
          owner_id,
          namespace: 'load',
          key: 'code',
          value: GOOD.code(),
        }));
        return send('POST metafields_set.json (5 valid values)', [200], 'POST', `${admin}/metafields_set.json`, {
          body: { metafields },
          prefix: '{"metafields":[',
        });
      },
    ],
    [
      8,
      () => {
        const success = Math.random() < 0.5;
        const feedback = {
          state: success ? 'success' : 'require_actions',
          feedback_generated_at: new Date().toISOString(),
          ...(success ? {} : { messages: ['Add a product description'] }),
        };
        return send(
          'POST products/{id}/resource_feedback.json',
          [200, 201],
          'POST',
          `${admin}/products/${pick(fx.productIds)}/resource_feedback.json`,
          { body: { resource_feedback: feedback }, prefix: '{"resource_feedback":' },
        );
      },
    ],
    [4, () => send('GET webhooks.json', [200], 'GET', `${admin}/webhooks.json`, { prefix: '{"webhooks":[' })],
    [4, () => send('GET webhooks/{id}.json', [200], 'GET', `${admin}/webhooks/${fx.webhookId}.json`, { prefix: '{"webhook":' })],
    [
      3,
      () =>
        send('operator PATCH products/{id} (title)', [200], 'PATCH', `${operator}/products/${pick(fx.productIds)}`, {
          token: fx.operatorToken,
          body: { product: { title: `Load product, update ${++counters.productUpdates}` } },
          prefix: '{"product":',
        }),
    ],
    [
      8,
      async () => {
        const cost = costKey(++costs / 100);
        const res = await send(EMITTING, [200], 'PUT', `${operator}/inventory_items/${pick(fx.inventoryItemIds)}`, {
          token: fx.operatorToken,
          body: { inventory_item: { cost } },
          prefix: '{"inventory_item":',
        });
        if (res.status === 200) answeredAt.set(cost, performance.timeOrigin + performance.now());
      },
    ],
  ];
  const totalWeight = ACTIONS.reduce((sum, [w]) => sum + w, 0);
  const choose = () => {
    let r = Math.random() * totalWeight;
    for (const [weight, action] of ACTIONS) if ((r -= weight) < 0) return action;
    return ACTIONS[0][1];
  };

  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) await choose()();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await pool.close();
  return { stats: [...stats.values()], elapsed, generatorCpu: (used.user + used.system) / 1e6, answeredAt };
}

/** The action whose successful answers each wrote one inventory_items/update event per subscription. */
export const EMITTING = 'operator PUT inventory_items/{id} (emits inventory_items/update)';
