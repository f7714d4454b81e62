import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteTokenStore } from '../src/sqlite';

const dir = mkdtempSync(join(tmpdir(), 'sdk-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(sqliteTokenStore.name, () => {
  it('keeps tokens in the file across instances (a restart), replaces and deletes them', async () => {
    const filename = join(dir, 'tokens.db');
    const first = sqliteTokenStore({ filename });
    await first.set({ handle: 'demo', accessToken: 'a', expiresAt: '2026-11-22T10:00:00Z', scope: 'read_products' });
    await first.set({ handle: 'demo', accessToken: 'b', expiresAt: '2026-11-22T20:00:00Z', scope: 'read_products,write_products' });
    await first.set({ handle: 'other', accessToken: 'c', expiresAt: '2026-11-22T20:00:00Z', scope: '' });
    await first.close();
    const second = sqliteTokenStore({ filename });
    expect(await second.get('demo')).toEqual({
      handle: 'demo',
      accessToken: 'b',
      expiresAt: '2026-11-22T20:00:00Z',
      scope: 'read_products,write_products',
    });
    await second.delete('demo');
    expect(await second.get('demo')).toBeUndefined();
    expect(await second.get('other')).toMatchObject({ accessToken: 'c' });
    await second.close();
  });

  it('makes the file readable by its owner only (tokens are credentials)', async () => {
    const filename = join(dir, 'private.db');
    await sqliteTokenStore({ filename }).close();
    expect(statSync(filename).mode & 0o777).toBe(0o600);
  });

  it('refuses a table name it would have to quote', () => {
    expect(() => sqliteTokenStore({ filename: ':memory:', table: 'x; DROP TABLE y' })).toThrow(/table name/);
  });
});
