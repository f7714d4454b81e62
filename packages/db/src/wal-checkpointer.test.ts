import { mkdtempSync, rmSync, statSync } from 'node:fs';
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
      for (let i = 0; i < 250 && statSync(file).size < 4_000_000; i++) await sleep(20);
      expect(statSync(file).size).toBeGreaterThanOrEqual(4_000_000);
      // The rows read back from the file itself once the WAL is gone.
      db.close();
      rmSync(`${file}-wal`, { force: true });
      const reopened = new Database(file, { readonly: true });
      expect(reopened.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 1000 });
      reopened.close();
    } finally {
      await checkpointer.close();
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
