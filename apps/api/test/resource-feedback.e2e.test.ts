import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, VERSION, type TestPlatform } from './harness';
import {
  at,
  feedbackApi,
  feedbackStore,
  inZone,
  operatorView,
  privateApp,
  productPicker,
  setClock,
  START,
  startFeedbackSuite,
  storedFeedback,
  type FeedbackStore,
} from './resource-feedback.helpers';

// Spec "Product resource feedback" and decisions §9: POST /products/{product_id}/resource_feedback.json.

let t: TestPlatform;
let s: FeedbackStore;
let foreignProduct: string;

beforeAll(async () => {
  ({ t, s } = await startFeedbackSuite('feedback-main', 24));
  foreignProduct = (await feedbackStore(t, 'feedback-other', 1)).productIds[0]!;
});
afterAll(async () => t?.close());

/** A product of the main store no test has used yet. */
const freshProduct = productPicker(() => s.productIds);
const stored = (productId: string) => storedFeedback(t, s.handle, productId);

describe('POST /products/{product_id}/resource_feedback.json (decisions §9)', () => {
  it('stores the first feedback: 201 with the whole response object, feedback_generated_at as sent, other times in the store zone (decisions §3.3)', async () => {
    const product = freshProduct();
    const r = await s.api.post(product, {
      state: 'require_actions',
      feedback_generated_at: at(-30),
      messages: ['Add a description', 'Add an image'],
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('traceid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body).toEqual({
      resource_feedback: {
        resource_id: product,
        resource_type: 'Product',
        state: 'require_actions',
        messages: ['Add a description', 'Add an image'],
        feedback_generated_at: at(-30),
        resource_updated_at: inZone(0),
        created_at: inZone(0),
        updated_at: inZone(0),
      },
    });
  });

  it('a later feedback replaces it: 200, created_at kept, updated_at moved', async () => {
    const product = freshProduct();
    expect(
      (await s.api.post(product, { state: 'require_actions', feedback_generated_at: at(1), messages: ['Fix the title'] })).status,
    ).toBe(201);
    await operator(t).advanceClock(10);
    const r = await s.api.post(product, { state: 'success', feedback_generated_at: at(5) });
    expect(r.status).toBe(200);
    expect(r.body.resource_feedback).toMatchObject({
      state: 'success',
      messages: [],
      feedback_generated_at: at(5),
      created_at: inZone(0),
      updated_at: inZone(10),
    });
    expect(await stored(product)).toEqual([expect.objectContaining({ state: 'success', messages: [] })]);
    await setClock(t, START);
  });

  it('accepts the sample spelling requires_action and stores require_actions (decisions §9.2)', async () => {
    const product = freshProduct();
    const r = await s.api.post(product, { state: 'requires_action', feedback_generated_at: at(0), messages: ['Missing SKU'] });
    expect(r.status).toBe(201);
    expect(r.body.resource_feedback.state).toBe('require_actions');
    expect((await stored(product))[0]?.state).toBe('require_actions');
  });

  it('keeps messages only for require_actions: success stores [] (decisions §9.3)', async () => {
    const product = freshProduct();
    const r = await s.api.post(product, { state: 'success', feedback_generated_at: at(0), messages: ['All good', 'Really'] });
    expect(r.status).toBe(201);
    expect(r.body.resource_feedback.messages).toEqual([]);
    expect((await stored(product))[0]?.messages).toEqual([]);
  });

  it('takes resource_updated_at and messages as optional (null counts as not sent); feedback_generated_at is echoed exactly as sent', async () => {
    const product = freshProduct();
    const r = await s.api.post(product, {
      state: 'require_actions',
      feedback_generated_at: '2026-11-22T03:59:00.750-02:00',
      resource_updated_at: null,
      messages: null,
    });
    expect(r.status).toBe(201);
    // The spec's "Echo of the request value": its offset and its milliseconds kept (docs/decisions.md).
    expect(r.body.resource_feedback).toMatchObject({ feedback_generated_at: '2026-11-22T03:59:00.750-02:00', messages: [] });
    // The same instant spelled otherwise replaces it, so the answer echoes the new spelling.
    const again = await s.api.post(product, { state: 'require_actions', feedback_generated_at: '2026-11-22T05:59:00.750Z' });
    expect(again.status).toBe(200);
    expect(again.body.resource_feedback.feedback_generated_at).toBe('2026-11-22T05:59:00.750Z');
    expect((await stored(product))[0]?.feedback_generated_at).toBe('2026-11-22T05:59:00.750Z');
  });

  it('answers the same shapes in every supported version the spec shows it in (spec Versioning 5)', async () => {
    const product = freshProduct();
    const statuses: number[] = [];
    for (const [i, version] of ['v20260301', 'v20260601', VERSION].entries()) {
      const r = await feedbackApi(t, s.app.token, version).post(product, { state: 'success', feedback_generated_at: at(i) });
      statuses.push(r.status);
      expect(r.headers.get('x-platform-api-version')).toBe(version);
      expect(Object.keys(r.body.resource_feedback).sort()).toEqual([
        'created_at',
        'feedback_generated_at',
        'messages',
        'resource_id',
        'resource_type',
        'resource_updated_at',
        'state',
        'updated_at',
      ]);
    }
    expect(statuses).toEqual([201, 200, 200]);
  });
});

describe('bad input: 422 with `field: message`, nothing stored, never a 500 (decisions §4, §9)', () => {
  const product = () => s.productIds[23]!;
  const good = { state: 'require_actions', feedback_generated_at: at(0) };
  const cases: [string, unknown, RegExp][] = [
    ['an unknown state', { ...good, state: 'done' }, /^resource_feedback\.state: must be one of require_actions, success/],
    ['a state in other letter case', { ...good, state: 'SUCCESS' }, /^resource_feedback\.state: must be one of/],
    ['no state', { feedback_generated_at: at(0) }, /^resource_feedback\.state: can't be blank$/],
    ['no feedback_generated_at', { state: 'success' }, /^resource_feedback\.feedback_generated_at: can't be blank$/],
    [
      'a time without an offset',
      { ...good, feedback_generated_at: '2026-11-22T12:00:00' },
      /^resource_feedback\.feedback_generated_at: must be an ISO 8601 date and time with an offset or Z/,
    ],
    [
      'a resource_updated_at without an offset',
      { ...good, resource_updated_at: '2026-11-22 12:00:00' },
      /^resource_feedback\.resource_updated_at: must be an ISO 8601/,
    ],
    ['a date alone', { ...good, feedback_generated_at: '2026-11-22' }, /feedback_generated_at: must be an ISO 8601/],
    [
      'an impossible date',
      { ...good, feedback_generated_at: '2026-02-30T00:00:00Z' },
      /feedback_generated_at: is not a valid date and time/,
    ],
    [
      'a year PostgreSQL cannot store',
      { ...good, feedback_generated_at: '0000-01-01T00:00:00Z' },
      /feedback_generated_at: must be between 1970/,
    ],
    ['a time as a number', { ...good, feedback_generated_at: 1764000000 }, /^resource_feedback\.feedback_generated_at: must be a string$/],
    [
      '51 messages',
      { ...good, messages: Array.from({ length: 51 }, (_, i) => `m${i}`) },
      /^resource_feedback\.messages: must hold at most 50 messages \(got 51\)$/,
    ],
    [
      'a message of 1,001 characters',
      { ...good, messages: ['ok', 'x'.repeat(1001)] },
      /^resource_feedback\.messages\[1\]: is too long \(maximum is 1000 characters\)$/,
    ],
    [
      'a message that is not a string',
      { ...good, messages: ['ok', 42, { text: 'x' }] },
      /^resource_feedback\.messages\[1\]: must be a string; resource_feedback\.messages\[2\]: must be a string$/,
    ],
    ['messages that are not an array', { ...good, messages: 'Fix it' }, /^resource_feedback\.messages: must be an array of strings$/],
    ['a blank message', { ...good, messages: ['  '] }, /^resource_feedback\.messages\[0\]: can't be blank$/],
    [
      'an unknown field',
      { ...good, stat: 'success' },
      /^resource_feedback: has unknown field 'stat' \(allowed: state, feedback_generated_at, resource_updated_at, messages\)$/,
    ],
    ['a state of another type', { ...good, state: true }, /^resource_feedback\.state: must be a string$/],
    ['resource_feedback not an object', ['success'], /^resource_feedback: must be an object$/],
  ];

  it.each(cases)('refuses %s', async (_name, resource_feedback, message) => {
    const r = await s.api.post(product(), resource_feedback as Record<string, unknown>);
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(message);
    expect(r.headers.get('traceid')).toBeTruthy();
  });

  it('reports every rule broken at once', async () => {
    const r = await s.api.post(product(), { state: 'ok', feedback_generated_at: 'yesterday', messages: Array(51).fill('m') });
    expect(r.status).toBe(422);
    expect(r.body.errors.split('; ').map((m: string) => m.split(':')[0])).toEqual([
      'resource_feedback.state',
      'resource_feedback.feedback_generated_at',
      'resource_feedback.messages',
    ]);
  });

  it('refuses bodies that are not the wrapped object', async () => {
    const bodies: [string, string, number, RegExp][] = [
      ['no resource_feedback', '{}', 422, /^resource_feedback: can't be blank$/],
      ['an array', '[]', 422, /^body: must be an object$/],
      ['a string', '"success"', 422, /^body: must be an object$/],
      ['null', 'null', 422, /^body: must be an object$/],
      [
        'a field beside it',
        JSON.stringify({ resource_feedback: good, state: 'success' }),
        422,
        /^body: has unknown field 'state' \(allowed: resource_feedback\)$/,
      ],
      ['malformed JSON', '{"resource_feedback":', 400, /^Malformed JSON body/],
      ['an empty body', '', 422, /^body: required$/],
    ];
    for (const [name, rawBody, status, message] of bodies) {
      const r = await s.api.postRaw(product(), { rawBody, headers: rawBody ? { 'content-type': 'application/json' } : {} });
      expect({ name, status: r.status }).toEqual({ name, status });
      expect(r.body.errors).toMatch(message);
    }
    const wrongType = await s.api.postRaw(product(), {
      rawBody: JSON.stringify({ resource_feedback: good }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(400);
  });

  it('nothing above was stored', async () => {
    expect(await stored(product())).toEqual([]);
  });

  it('a duplicate key is refused as everywhere in the API (400), and nothing is stored', async () => {
    const product = freshProduct();
    const rawBody = `{"resource_feedback":{"state":"success","feedback_generated_at":"${at(0)}","state":"require_actions","messages":["Last wins"]}}`;
    const r = await s.api.postRaw(product, { rawBody, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toBe("Malformed JSON body: the key 'state' appears twice in one object");
    expect(await stored(product)).toEqual([]);
  });

  it('stores messages exactly as sent, control characters included; NUL is refused as in every body (400)', async () => {
    const product = freshProduct();
    const messages = ['tab\there', 'bell\u0007and\u001fcontrol', 'quote " and \\ backslash', '<script>alert(1)</script>'];
    const r = await s.api.post(product, { state: 'require_actions', feedback_generated_at: at(0), messages });
    expect(r.status).toBe(201);
    expect(r.body.resource_feedback.messages).toEqual(messages);
    expect((await stored(product))[0]?.messages).toEqual(messages);
    const nul = await s.api.post(freshProduct(), { state: 'require_actions', feedback_generated_at: at(0), messages: ['nul\u0000byte'] });
    expect(nul.status).toBe(400);
    expect(nul.body.errors).toMatch(/NUL character/);
  });

  it('bounds the message of a body with huge unknown field names', async () => {
    const feedback = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`${'k'.repeat(50)}${i}`, i]));
    const r = await s.api.post(s.productIds[23]!, { state: 'success', feedback_generated_at: at(0), ...feedback });
    expect(r.status).toBe(422);
    expect(r.body.errors.length).toBeLessThanOrEqual(16_384);
  });

  it('accepts 50 messages of 1,000 characters (code points: emoji count once)', async () => {
    const product = freshProduct();
    const messages = Array.from({ length: 50 }, (_, i) => `${i}${'😀'.repeat(1000 - String(i).length)}`);
    const r = await s.api.post(product, { state: 'require_actions', feedback_generated_at: at(0), messages });
    expect(r.status).toBe(201);
    expect(r.body.resource_feedback.messages).toEqual(messages);
  });
});

describe('404 for a product the store does not have (decisions §9.6)', () => {
  it("unknown, another store's, or an id that is not a decimal id", async () => {
    const feedback = { state: 'success', feedback_generated_at: at(0) };
    for (const id of [
      '999999',
      foreignProduct,
      'abc',
      '-1',
      '1.0',
      '0x10',
      '99999999999999999999',
      `gid%3A%2F%2Fplatform%2FProduct%2F${s.productIds[0]}`,
    ]) {
      const r = await s.api.post(id, feedback);
      expect({ id, status: r.status }).toEqual({ id, status: 404 });
      expect(r.body.errors).toBeTruthy();
    }
    expect((await operatorView(t, 'feedback-other', foreignProduct)).body.resource_feedback).toEqual([]);
  });

  it('the path answers POST only: another method is 405 with Allow: POST (decisions §4)', async () => {
    const url = `${t.origin}/admin/openapi/${VERSION}/products/${s.productIds[0]}/resource_feedback.json`;
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await call(url, { method, token: s.app.token });
      expect({ method, status: r.status, allow: r.headers.get('allow'), body: r.body }).toEqual({
        method,
        status: 405,
        allow: 'POST',
        body: { errors: 'Method Not Allowed: this path takes POST' },
      });
    }
  });
});

describe('the API reference (decisions §12.3)', () => {
  it('/openapi.json documents the route and the operator view', async () => {
    const doc = await call(`${t.origin}/openapi.json`);
    expect(doc.body.paths['/admin/openapi/{version}/products/{product_id}/resource_feedback.json']?.post?.operationId).toBe(
      'createResourceFeedback',
    );
    expect(doc.body.paths['/platform/v1/stores/{handle}/products/{id}/resource_feedback']?.get?.operationId).toBe(
      'listProductResourceFeedback',
    );
  });
});

describe('access (decisions §5.5, §5.6)', () => {
  it('needs write_products: read_products alone is 403 naming write_products', async () => {
    const reader = await privateApp(t, s.handle, 'Reader', ['read_products']);
    const r = await feedbackApi(t, reader.token).post(s.productIds[0]!, { state: 'success', feedback_generated_at: at(0) });
    expect(r.status).toBe(403);
    expect(r.body.errors).toMatch(/write_products/);
  });

  it('401 without a token or with an unknown one', async () => {
    const url = `${t.origin}/admin/openapi/${VERSION}/products/${s.productIds[0]}/resource_feedback.json`;
    const body = { resource_feedback: { state: 'success', feedback_generated_at: at(0) } };
    expect((await call(url, { body })).status).toBe(401);
    expect((await call(url, { body, token: 'not-a-token' })).status).toBe(401);
  });

  it('402 on a frozen store, 423 on a closed one, before the body is judged', async () => {
    const frozen = await feedbackStore(t, 'feedback-status', 1);
    const patch = (status: string) => operator(t).call('/stores/feedback-status', { method: 'PATCH', body: { store: { status } } });
    await patch('frozen');
    expect((await frozen.api.post(frozen.productIds[0]!, { state: 'success', feedback_generated_at: at(0) })).status).toBe(402);
    expect((await frozen.api.post(frozen.productIds[0]!, { state: 'nonsense' })).status).toBe(402);
    await patch('closed');
    expect((await frozen.api.post(frozen.productIds[0]!, { state: 'success', feedback_generated_at: at(0) })).status).toBe(423);
    expect((await operatorView(t, 'feedback-status', frozen.productIds[0]!)).body.resource_feedback).toEqual([]);
  });
});
