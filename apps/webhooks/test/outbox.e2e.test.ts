import { inOutboxTransaction } from '@platform/db';
import { describe, expect, it } from 'vitest';
import { clockNow, fileDatabase, outboxEvent, receiver, spawnSender, storeAndApp, subscription, waitFor } from './helpers';

// The outbox writer (packages/db, inOutboxTransaction) beside a busy sender process on one database.

const database = fileDatabase();

describe('the outbox beside a sender', () => {
  it('writes every event of a transaction that reads before it writes, while a sender process commits its records', async () => {
    const r = await receiver();
    const f = await storeAndApp(database.db);
    await subscription(database.db, f, r.url);
    await outboxEvent(database.db, f, '{"warm":"up"}'); // installs the app
    const sender = spawnSender({ DATABASE_URL: database.url, PLATFORM_SENDER_POLL_MS: '1000' });
    const failures: string[] = [];
    const now = await clockNow(database.db);
    for (let i = 0; i < 300; i++) {
      // Like a release of a fulfillment order: read, then write the change and its events. On
      // SQLite a transaction that began by reading could not write once the sender had committed
      // meanwhile (SQLITE_BUSY at once, whatever the busy timeout).
      await inOutboxTransaction(database.db, async (tx, emit) => {
        await tx.store.findUniqueOrThrow({ where: { id: f.storeId } });
        await new Promise((resolve) => setTimeout(resolve, 1));
        await emit({ storeId: f.storeId, topic: 'inventory_items/update', now, render: () => `{"n":${i}}`, appMayReceive: () => true });
      }).catch((error: unknown) => failures.push(String(error).slice(0, 200)));
    }
    await waitFor(() => r.received.length >= 301 - failures.length, 'the events', 60_000);
    sender.child.kill('SIGTERM');
    expect((await sender.exited).code, sender.output()).toBe(0);
    expect(failures).toEqual([]);
    expect(r.received).toHaveLength(301);
    await r.close();
  });
});
