import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteTokenStore } from '../src/sqlite';
import { tokenPersistenceContract } from './token-store-contract';

const dir = mkdtempSync(join(tmpdir(), 'sdk-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(sqliteTokenStore.name, () => {
  // In the file: an instance is a restart.
  tokenPersistenceContract(() => sqliteTokenStore({ filename: join(dir, 'tokens.db') }));

  it('makes the file readable by its owner only (tokens are credentials)', async () => {
    const filename = join(dir, 'private.db');
    await sqliteTokenStore({ filename }).close();
    expect(statSync(filename).mode & 0o777).toBe(0o600);
  });

  it('refuses a table name it would have to quote', () => {
    expect(() => sqliteTokenStore({ filename: ':memory:', table: 'x; DROP TABLE y' })).toThrow(/table name/);
  });
});
