import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startWalCheckpointer } from './index';

const dir = mkdtempSync(join(tmpdir(), 'platform-wal-checkpointer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the WAL checkpointer (a worker thread: the committing process never copies pages back)', () => {
  it('copies a connection’s committed pages into the database file after a nudge, and only after one', async () => {
    const file = join(dir, 'checkpoint.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (x BLOB)');
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    for (let i = 0; i < 1000; i++) insert.run(Buffer.alloc(4000, i % 251));
    // Everything is in the WAL: the database file holds a page or two.
    const before = statSync(file).size;
    expect(before).toBeLessThan(100_000);

    const checkpointer = startWalCheckpointer(`file:${file}`, 20);
    try {
      await sleep(300);
      expect(statSync(file).size, 'no checkpoint without a nudge (an idle process runs no timer)').toBe(before);
      checkpointer.nudge();
      // Pages are copied in page order: the file has every page once it has its full size.
      const { page_count: pages, page_size: size } = db.prepare('SELECT * FROM pragma_page_count(), pragma_page_size()').get() as {
        page_count: number;
        page_size: number;
      };
      expect(pages * size).toBeGreaterThan(4_000_000);
      for (let i = 0; i < 250 && statSync(file).size < pages * size; i++) await sleep(20);
      expect(statSync(file).size).toBe(pages * size);
      // The database file alone (no WAL beside it) holds every row: the checkpoint copied them there.
      // (The writing connection stays open: closing it would checkpoint by itself.)
      let rows: unknown;
      for (let i = 0; i < 50 && rows === undefined; i++) {
        const copy = join(dir, `copy-${i}.db`);
        copyFileSync(file, copy);
        try {
          const alone = new Database(copy, { readonly: true });
          rows = alone.prepare('SELECT COUNT(*) AS n FROM t').get();
          alone.close();
        } catch {
          await sleep(20); // the last page's write may still be under way
        }
      }
      expect(rows).toEqual({ n: 1000 });
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('closes its worker, and a closed one ignores nudges', async () => {
    const file = join(dir, 'closed.db');
    new Database(file).close();
    const checkpointer = startWalCheckpointer(`file:${file}`);
    await checkpointer.close();
    expect(() => checkpointer.nudge()).not.toThrow();
    await checkpointer.close();
  });
});
