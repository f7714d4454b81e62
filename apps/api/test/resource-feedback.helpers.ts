import { call, operator, startPlatform, VERSION, type Answer, type TestPlatform } from './harness';

// Helpers of the resource-feedback*.e2e.test.ts files (not a test file itself).

/** Plenty of room in the leaky bucket: these suites make many calls per app (decisions §7 has its own tests). */
export const PLATFORM_ENV = { PLATFORM_RATE_LIMIT_CAPACITY: '100000' };

/** The service clock every suite starts at: times in answers are then known exactly. */
export const START = '2026-11-22T04:00:00Z';
/** Asia/Shanghai is UTC+8 all year: START renders as 12:00:00+08:00 (decisions §3.3). */
export const ZONE = 'Asia/Shanghai';

export type Feedback = Record<string, unknown>;

/** One app's view of the feedback route on one store. */
export function feedbackApi(t: TestPlatform, token: string, version = VERSION) {
  const path = (productId: string) => `${t.origin}/admin/openapi/${version}/products/${productId}/resource_feedback.json`;
  return {
    post: (productId: string, resource_feedback: Feedback): Promise<Answer> =>
      call(path(productId), { method: 'POST', token, body: { resource_feedback } }),
    postRaw: (productId: string, init: Parameters<typeof call>[1]): Promise<Answer> =>
      call(path(productId), { method: 'POST', token, ...init }),
  };
}

/** A private app named `name` with `scopes` on the store `handle` (decisions §10). */
export async function privateApp(t: TestPlatform, handle: string, name: string, scopes = ['read_products', 'write_products']) {
  const r = await operator(t).call('/apps', { body: { app: { name, kind: 'private', scopes, store_handle: handle } } });
  if (r.status !== 201) throw new Error(`createApp ${r.status} ${r.text}`);
  return { id: r.body.app.id as string, name, token: r.body.access_token as string };
}

/** A store in ZONE with `products` products and one app that may write products. */
export async function feedbackStore(t: TestPlatform, handle: string, products = 2) {
  const op = operator(t);
  await op.createStore(handle, { iana_timezone: ZONE });
  const app = await privateApp(t, handle, `Checker of ${handle}`);
  const productIds = await op.createProducts(
    handle,
    Array.from({ length: products }, (_, i) => ({ title: `Product ${i + 1}` })),
  );
  return { handle, app, productIds, api: feedbackApi(t, app.token) };
}

export type FeedbackStore = Awaited<ReturnType<typeof feedbackStore>>;

/** What each suite starts from: a platform at START with a feedback store `handle` of `products` products. */
export async function startFeedbackSuite(handle: string, products: number): Promise<{ t: TestPlatform; s: FeedbackStore }> {
  const t = await startPlatform(PLATFORM_ENV);
  await setClock(t, START);
  return { t, s: await feedbackStore(t, handle, products) };
}

/** The operator view of a product's feedback (decisions §10). */
export function operatorView(t: TestPlatform, handle: string, productId: string): Promise<Answer> {
  return operator(t).call(`/stores/${handle}/products/${productId}/resource_feedback`);
}

/** The feedback records the operator view lists for a product. */
export async function storedFeedback(t: TestPlatform, handle: string, productId: string) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, read field by field
  return (await operatorView(t, handle, productId)).body.resource_feedback as Record<string, any>[];
}

/** Sets the manual clock (decisions §10). */
export async function setClock(t: TestPlatform, now: string): Promise<void> {
  const r = await operator(t).call('/clock', { body: { now } });
  if (r.status !== 200) throw new Error(`clock ${r.status} ${r.text}`);
}

/** `2026-11-22T04:00:05Z` for `at(5)`: seconds after START, as a request would send it. */
export const at = (seconds: number) => new Date(Date.parse(START) + seconds * 1000).toISOString().replace('.000Z', 'Z');
/** The same instant as the service renders it in ZONE (UTC+8, second precision). */
export const inZone = (seconds: number) => {
  const local = new Date(Date.parse(START) + seconds * 1000 + 8 * 3600_000).toISOString();
  return `${local.slice(0, 19)}+08:00`;
};

/**
 * Hands out the products of a suite's store one by one, so no two tests share a product's feedback.
 * `ids` is read on each call (the store is made in beforeAll, after this is set up).
 */
export function productPicker(ids: () => string[]): () => string {
  let next = 0;
  return () => {
    const id = ids()[next++];
    if (id === undefined) throw new Error('every product of the suite is used: create more in beforeAll');
    return id;
  };
}
