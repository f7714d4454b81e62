import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, migrate } from './index';

// Prisma's SQLite adapters run a client's statements and its transactions on one connection. A
// request's single write issued while another request's transaction is open must not become part
// of that transaction: it answered success, and the other's rollback would take it back
// (gateStatementsBehindTransactions in sqlite-adapter.ts; it did, before 2026-11-27, on better-sqlite3).

const dir = mkdtempSync(join(tmpdir(), 'platform-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(['better-sqlite3', 'libsql'] as const)('SQLite, driver %s', (driver) => {
  it("a write outside a transaction stays when another's transaction rolls back", async () => {
    const url = `file:${join(dir, `${driver}.db`)}`;
    await migrate(url);
    const db = createDb(url, { sqliteDriver: driver });
    try {
      const store = await db.prisma.store.create({
        data: {
          updatedAt: new Date(),
          handle: 'gate',
          name: 'gate',
          email: 'o@example.com',
          customerEmail: 'h@example.com',
          merchantId: 1n,
        },
      });
      const product = (handle: string) => ({ updatedAt: new Date(), storeId: store.id, handle, title: handle, doc: '{}' });
      const events: string[] = [];
      let outside: Promise<unknown> | undefined;
      await expect(
        db.prisma.$transaction(async (tx) => {
          await tx.product.create({ data: product('inside') });
          outside = db.prisma.product.create({ data: product('outside') }).then(() => events.push('outside written'));
          await new Promise((resolve) => setTimeout(resolve, 50));
          events.push('transaction ends');
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await outside;
      const handles = (await db.prisma.product.findMany({ where: { storeId: store.id } })).map((p) => p.handle);
      expect(handles).toEqual(['outside']);
      // It waited for the transaction to end rather than running inside it.
      expect(events).toEqual(['transaction ends', 'outside written']);
    } finally {
      await db.close();
    }
  }, 60_000);
});
