/* eslint-disable @typescript-eslint/no-explicit-any -- answers in tests are arbitrary JSON, read field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPERATOR_TOKEN, operator, type TestPlatform } from './harness';
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

// decisions §9.1, §9.4, §9.5 and §10: staleness, the product's updated_at, one record per app,
// requests at once, the operator view, and what deleting the app or the product leaves.

let t: TestPlatform;
let s: FeedbackStore;

beforeAll(async () => {
  ({ t, s } = await startFeedbackSuite('stale-main', 24));
});
afterAll(async () => t?.close());

/** A product of the main store no test has used yet. */
const freshProduct = productPicker(() => s.productIds);
const view = (productId: string) => storedFeedback(t, s.handle, productId);

describe('staleness (decisions §9.4)', () => {
  it('ignores feedback generated before the stored one: 200 with the stored feedback unchanged', async () => {
    const product = freshProduct();
    const first = await s.api.post(product, { state: 'require_actions', feedback_generated_at: at(10), messages: ['Newest'] });
    expect(first.status).toBe(201);
    await operator(t).advanceClock(5);
    const older = await s.api.post(product, { state: 'success', feedback_generated_at: at(9) });
    expect(older.status).toBe(200);
    expect(older.body).toEqual(first.body);
    expect(await view(product)).toEqual([
      expect.objectContaining({ state: 'require_actions', messages: ['Newest'], updated_at: inZone(0) }),
    ]);
    await setClock(t, START);
  });

  it('compares instants, not texts: an earlier time in another offset is older', async () => {
    const product = freshProduct();
    await s.api.post(product, { state: 'success', feedback_generated_at: '2026-11-22T12:00:00+08:00' });
    // 05:00:00+01:00 is 04:00:00Z, the same instant as 12:00:00+08:00: not older, so it replaces.
    const sameInstant = await s.api.post(product, {
      state: 'require_actions',
      feedback_generated_at: '2026-11-22T05:00:00+01:00',
      messages: ['Same time'],
    });
    expect(sameInstant.body.resource_feedback.state).toBe('require_actions');
    const earlier = await s.api.post(product, { state: 'success', feedback_generated_at: '2026-11-22T04:59:59.999+01:00' });
    expect(earlier.status).toBe(200);
    expect(earlier.body.resource_feedback.state).toBe('require_actions');
  });

  it('ignores feedback built from an older product version (resource_updated_at), even when generated later', async () => {
    const product = freshProduct();
    await s.api.post(product, { state: 'success', feedback_generated_at: at(10), resource_updated_at: at(5) });
    const r = await s.api.post(product, {
      state: 'require_actions',
      feedback_generated_at: at(20),
      resource_updated_at: at(4),
      messages: ['Old look'],
    });
    expect(r.status).toBe(200);
    expect(r.body.resource_feedback).toMatchObject({ state: 'success', feedback_generated_at: at(10) });
  });

  it('equal times are not older: the feedback replaces the stored one (a re-sent feedback is taken)', async () => {
    const product = freshProduct();
    await s.api.post(product, { state: 'success', feedback_generated_at: at(10), resource_updated_at: at(5) });
    const r = await s.api.post(product, {
      state: 'require_actions',
      feedback_generated_at: at(10),
      resource_updated_at: at(5),
      messages: ['Same times'],
    });
    expect(r.status).toBe(200);
    expect(r.body.resource_feedback).toMatchObject({ state: 'require_actions', messages: ['Same times'] });
  });

  it('re-sending the very same feedback later changes nothing, not even updated_at', async () => {
    const product = freshProduct();
    const feedback = { state: 'require_actions', feedback_generated_at: at(3), resource_updated_at: at(0), messages: ['Same'] };
    const first = await s.api.post(product, feedback);
    await operator(t).advanceClock(30);
    const again = await s.api.post(product, feedback);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const changed = await s.api.post(product, { ...feedback, messages: ['Same', 'And one more'] });
    expect(changed.body.resource_feedback).toMatchObject({ messages: ['Same', 'And one more'], updated_at: inZone(30) });
    await setClock(t, START);
  });

  it('without resource_updated_at (either side) only feedback_generated_at decides (docs/decisions.md)', async () => {
    const product = freshProduct();
    await s.api.post(product, { state: 'success', feedback_generated_at: at(10), resource_updated_at: at(5) });
    const later = await s.api.post(product, { state: 'require_actions', feedback_generated_at: at(11), messages: ['No version sent'] });
    expect(later.body.resource_feedback.state).toBe('require_actions');
    const storedHasNone = await s.api.post(product, {
      state: 'success',
      feedback_generated_at: at(12),
      resource_updated_at: '2000-01-01T00:00:00Z',
    });
    expect(storedHasNone.body.resource_feedback.state).toBe('success');
    const earlier = await s.api.post(product, { state: 'require_actions', feedback_generated_at: at(11) });
    expect(earlier.body.resource_feedback.state).toBe('success');
  });
});

describe("resource_updated_at is the product's current updated_at (decisions §9.5)", () => {
  it('follows a product PATCH through the operator API; feedback of the old version is then ignored', async () => {
    const product = freshProduct();
    const first = await s.api.post(product, {
      state: 'require_actions',
      feedback_generated_at: at(1),
      resource_updated_at: at(0),
      messages: ['Add a title'],
    });
    expect(first.body.resource_feedback.resource_updated_at).toBe(inZone(0));
    await operator(t).advanceClock(60);
    const patched = await operator(t).call(`/stores/${s.handle}/products/${product}`, {
      method: 'PATCH',
      body: { product: { title: 'Better title' } },
    });
    expect(patched.status).toBe(200);
    const updatedAt = patched.body.product.updated_at as string;
    expect(updatedAt).toBe(inZone(60));
    // The merchant changed the product: a stale feedback (older generated_at) is ignored, but shows the new time.
    const ignored = await s.api.post(product, { state: 'success', feedback_generated_at: at(0) });
    expect(ignored.status).toBe(200);
    expect(ignored.body.resource_feedback).toMatchObject({
      state: 'require_actions',
      resource_updated_at: updatedAt,
      updated_at: inZone(0),
    });
    // The app re-checks the new version, sending the updated_at it read back, as rendered.
    const fresh = await s.api.post(product, { state: 'success', feedback_generated_at: at(61), resource_updated_at: updatedAt });
    expect(fresh.body.resource_feedback).toMatchObject({ state: 'success', resource_updated_at: updatedAt, updated_at: inZone(60) });
    // A late answer about the old version (generated later, but built from resource_updated_at 0) is ignored.
    const late = await s.api.post(product, {
      state: 'require_actions',
      feedback_generated_at: at(62),
      resource_updated_at: at(0),
      messages: ['Old'],
    });
    expect(late.body.resource_feedback.state).toBe('success');
    expect((await view(product))[0]).toMatchObject({ state: 'success', resource_updated_at: updatedAt });
    await setClock(t, START);
  });
});

describe('one record per (store, app, product) (decisions §9.1)', () => {
  it('two apps keep separate records; the operator view lists both with their names, ascending app id', async () => {
    const product = freshProduct();
    const other = await privateApp(t, s.handle, 'SEO Checker');
    const mine = await s.api.post(product, { state: 'require_actions', feedback_generated_at: at(5), messages: ['Mine'] });
    const theirs = await feedbackApi(t, other.token).post(product, { state: 'success', feedback_generated_at: at(1) });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    // The other app's older time does not make mine stale, nor the reverse.
    const again = await feedbackApi(t, other.token).post(product, {
      state: 'require_actions',
      feedback_generated_at: at(2),
      messages: ['Theirs'],
    });
    expect(again.body.resource_feedback.messages).toEqual(['Theirs']);
    const r = await operatorView(t, s.handle, product);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      resource_feedback: [
        {
          resource_id: product,
          resource_type: 'Product',
          state: 'require_actions',
          messages: ['Mine'],
          feedback_generated_at: at(5),
          resource_updated_at: inZone(0),
          created_at: inZone(0),
          updated_at: inZone(0),
          app: { id: s.app.id, name: s.app.name },
        },
        expect.objectContaining({ state: 'require_actions', messages: ['Theirs'], app: { id: other.id, name: 'SEO Checker' } }),
      ],
    });
  });

  it('requests at once for one (app, product): exactly one 201, the rest 200, one record holding the newest', async () => {
    const product = freshProduct();
    const times = [3, 7, 1, 9, 5, 2, 8, 6, 4, 0];
    const answers = await Promise.all(
      times.map((i) => s.api.post(product, { state: 'require_actions', feedback_generated_at: at(i), messages: [`generated at ${i}`] })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const records = await view(product);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ messages: ['generated at 9'], feedback_generated_at: at(9) });
  });

  it('identical requests at once: one 201, the rest 200', async () => {
    const product = freshProduct();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => s.api.post(product, { state: 'success', feedback_generated_at: at(0) })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(await view(product)).toHaveLength(1);
  });
});

describe('the operator view (decisions §10)', () => {
  it('is an empty list for a product without feedback', async () => {
    const r = await operatorView(t, s.handle, s.productIds[23]!);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ resource_feedback: [] });
  });

  it("404 for an unknown store, an unknown product, another store's product, or a non-decimal id", async () => {
    const other = await feedbackStore(t, 'stale-other', 1);
    for (const [handle, id] of [
      ['no-such-store', s.productIds[0]!],
      [s.handle, '999999'],
      [s.handle, other.productIds[0]!],
      [s.handle, 'abc'],
      [s.handle, '99999999999999999999'],
    ]) {
      const r = await operatorView(t, handle!, id!);
      expect({ handle, id, status: r.status }).toEqual({ handle, id, status: 404 });
    }
  });

  it('needs the operator token (401 without it or with an app token)', async () => {
    const url = `${t.origin}/platform/v1/stores/${s.handle}/products/${s.productIds[0]}/resource_feedback`;
    expect((await call(url)).status).toBe(401);
    expect((await call(url, { token: s.app.token })).status).toBe(401);
    expect((await call(url, { token: OPERATOR_TOKEN })).status).toBe(200);
  });
});

describe('deleting the app leaves no feedback readable', () => {
  it("a deleted private app's feedback is gone; a new app of the same name starts afresh with 201", async () => {
    const product = freshProduct();
    const temporary = await privateApp(t, s.handle, 'Temporary');
    expect((await feedbackApi(t, temporary.token).post(product, { state: 'success', feedback_generated_at: at(0) })).status).toBe(201);
    expect((await view(product)).map((f) => f.app.name)).toEqual(['Temporary']);
    const removed = await operator(t).call(`/stores/${s.handle}/apps/${temporary.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(await view(product)).toEqual([]);
    expect((await feedbackApi(t, temporary.token).post(product, { state: 'success', feedback_generated_at: at(1) })).status).toBe(401);
  });
});

describe('deleting the product or the store leaves no feedback (foreign keys with cascade)', () => {
  // No route deletes products or stores yet: the rows are deleted as a future route would, and the
  // database must take the feedback with them on both providers.
  const rowsOf = (where: { productId?: bigint; storeId?: bigint }) => t.db.prisma.resourceFeedback.count({ where });

  it('a deleted product takes its feedback with it', async () => {
    const product = freshProduct();
    await s.api.post(product, { state: 'success', feedback_generated_at: at(0) });
    expect(await rowsOf({ productId: BigInt(product) })).toBe(1);
    await t.db.prisma.product.delete({ where: { id: BigInt(product) } });
    expect(await rowsOf({ productId: BigInt(product) })).toBe(0);
    expect((await operatorView(t, s.handle, product)).status).toBe(404);
    expect((await s.api.post(product, { state: 'success', feedback_generated_at: at(1) })).status).toBe(404);
  });

  it('an uninstalled app (its installation deleted, the app kept, as for custom apps) leaves no feedback', async () => {
    const product = freshProduct();
    const kept = await privateApp(t, s.handle, 'Uninstalled');
    await feedbackApi(t, kept.token).post(product, { state: 'success', feedback_generated_at: at(0) });
    expect((await view(product)).map((f) => f.app.name)).toEqual(['Uninstalled']);
    await t.db.prisma.installation.deleteMany({ where: { appId: BigInt(kept.id) } });
    expect(await t.db.prisma.app.count({ where: { id: BigInt(kept.id) } })).toBe(1);
    expect(await view(product)).toEqual([]);
  });

  it('a deleted store takes every feedback of its products with it', async () => {
    const doomed = await feedbackStore(t, 'stale-doomed', 1);
    await doomed.api.post(doomed.productIds[0]!, { state: 'success', feedback_generated_at: at(0) });
    const store = await t.db.prisma.store.findUniqueOrThrow({ where: { handle: 'stale-doomed' } });
    expect(await rowsOf({ storeId: store.id })).toBe(1);
    await t.db.prisma.store.delete({ where: { id: store.id } });
    expect(await rowsOf({ storeId: store.id })).toBe(0);
  });
});

describe('versions (spec Versioning 5)', () => {
  it('v20270301 serves the same shapes once it is released', async () => {
    const product = freshProduct();
    const early = await feedbackApi(t, s.app.token, 'v20270301').post(product, { state: 'success', feedback_generated_at: at(0) });
    expect(early.status).toBe(404);
    await setClock(t, '2027-03-02T00:00:00Z');
    const r = await feedbackApi(t, s.app.token, 'v20270301').post(product, {
      state: 'requires_action',
      feedback_generated_at: at(0),
      messages: ['Later'],
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-platform-api-version')).toBe('v20270301');
    expect(r.body.resource_feedback).toMatchObject({
      state: 'require_actions',
      messages: ['Later'],
      created_at: '2027-03-02T08:00:00+08:00',
    });
  });
});
