import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDb } from './client';
import { pendingMigrations } from './migrate';
import { emptyTestDatabase, migratedTestDatabase, removeOrphanSqliteTemplates } from './testing';
import { NOW, TIMEOUT } from './databases.test-support';

// The apps' suites take their databases from here (@platform/db/testing): each must be current,
// empty of rows and a database of its own, whatever the copies before it did.
const servers: [string, string | undefined][] = [['SQLite', undefined]];
if (process.env.TEST_DATABASE_URL?.startsWith('postgres')) servers.push(['PostgreSQL', process.env.TEST_DATABASE_URL]);

describe.each(servers)('test databases on %s', (_name, pgUrl) => {
  it(
    'each migrated database is a current schema of its own: no migration pending, no row of another copy',
    async () => {
      const first = await migratedTestDatabase({ prefix: 'copytest', pgUrl });
      const second = await migratedTestDatabase({ prefix: 'copytest', pgUrl });
      try {
        expect(first.url).not.toBe(second.url);
        for (const database of [first, second]) expect(await pendingMigrations(database.url)).toEqual([]);
        const db = createDb(first.url);
        try {
          await db.prisma.store.create({
            data: {
              handle: 'copied',
              name: 'Copied',
              email: 'a@example.com',
              customerEmail: 'b@example.com',
              merchantId: 7n,
              updatedAt: NOW,
            },
          });
        } finally {
          await db.close();
        }
        const third = await migratedTestDatabase({ prefix: 'copytest', pgUrl });
        for (const database of [second, third]) {
          const other = createDb(database.url);
          try {
            expect(await other.prisma.store.count()).toBe(0);
          } finally {
            await other.close();
          }
        }
        await third.drop();
      } finally {
        await first.drop();
        await second.drop();
      }
      if (!pgUrl) expect(existsSync(first.url.slice('file:'.length))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'an empty database has every migration pending',
    async () => {
      const database = await emptyTestDatabase({ prefix: 'copytest', pgUrl });
      try {
        expect((await pendingMigrations(database.url)).length).toBeGreaterThan(0);
      } finally {
        await database.drop();
      }
    },
    TIMEOUT,
  );
});

describe('SQLite templates', () => {
  it('removes the template folders of processes that are gone, and only those', () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-orphans-'));
    try {
      // A pid no process has (the kernel's pids stay under 2^22), this process's, and a live one's (pid 1).
      const names = [
        'platform-template-4194999-aaaa',
        `platform-template-${process.pid}-bbbb`,
        'platform-template-1-cccc',
        'other-4194999-x',
      ];
      for (const name of names) mkdirSync(join(dir, name));
      expect(removeOrphanSqliteTemplates(dir)).toEqual(['platform-template-4194999-aaaa']);
      expect(readdirSync(dir).sort()).toEqual(names.slice(1).sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
