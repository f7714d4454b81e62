import { afterAll, beforeAll } from 'vitest';
import { startPlatform, storeWithApp, type TestPlatform } from './harness';

// Shared by the webhooks*.e2e.test.ts and merchant-pages*.e2e.test.ts files (not a test file itself).

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

/** One attempt as the sender records it: the receiver's status and body, or only an error (a timeout). */
export interface RecordedAttempt {
  at: Date;
  durationMs: number;
  status?: number;
  error?: string;
  body?: string;
}

/**
 * Writes what the sender would have for a delivery (it does not run in these tests): its attempts, then
 * the outcome of the last one: delivered on a 2xx, else failed with that attempt's error.
 */
export async function recordAttempts(t: TestPlatform, deliveryId: bigint, attempts: RecordedAttempt[]): Promise<void> {
  await t.db.prisma.webhookAttempt.createMany({
    data: attempts.map((a, i) => ({
      deliveryId,
      number: i + 1,
      startedAt: a.at,
      durationMs: a.durationMs,
      responseStatus: a.status ?? null,
      error: a.error ?? null,
      responseBody: a.body ?? null,
    })),
  });
  const last = attempts[attempts.length - 1]!;
  await t.db.prisma.webhookDelivery.update({
    where: { id: deliveryId },
    data:
      last.status !== undefined && last.status < 300
        ? { status: 'delivered', attempts: attempts.length, deliveredAt: last.at }
        : { status: 'failed', attempts: attempts.length, lastError: last.error ?? null },
  });
}
