import { afterAll, beforeAll } from 'vitest';
import { startPlatform, storeWithApp, type TestPlatform } from './harness';

// Shared by the webhooks.subscriptions*.e2e.test.ts files (not a test file itself).

/** Both topics' read scopes. */
export const ALL = ['read_inventory', 'read_fulfillments'];

export const hook = (over: Record<string, unknown> = {}) => ({
  webhook: { topic: 'inventory_items/update', address: 'https://hooks.example.com/in', ...over },
});

/** A platform for the file (a bucket that never fills) and the store `hooks` with an app of both scopes. */
export function hooksPlatform(): { readonly t: TestPlatform; readonly shop: Awaited<ReturnType<typeof storeWithApp>> } {
  let t: TestPlatform | undefined;
  let shop: Awaited<ReturnType<typeof storeWithApp>> | undefined;
  beforeAll(async () => {
    t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
    shop = await storeWithApp(t, 'hooks', ALL);
  });
  afterAll(() => t?.close());
  return {
    get t() {
      return t!;
    },
    get shop() {
      return shop!;
    },
  };
}
