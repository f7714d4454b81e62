import { describe, expect, it } from 'vitest';
import { rewriteSqliteMigration } from './migration-sql';
import { migrationTimestamp } from './migrations';
import { toPgPlaceholders } from './postgresql';
import { prepareSqliteFile, providerOf, redactUrl, sqliteFilePath } from './provider';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from './client';
import { migrate } from './migrate';
import { parseSqliteDateTime, sqliteDateTimeText } from './sqlite';

describe('providerOf', () => {
  it('maps file: to sqlite and postgres(ql):// to postgresql', () => {
    expect(providerOf('file:./data/platform.db')).toBe('sqlite');
    expect(providerOf('postgresql://u@h:5432/db')).toBe('postgresql');
    expect(providerOf('postgres://u@h/db')).toBe('postgresql');
  });

  it('rejects other schemes with a message naming the choices', () => {
    expect(() => providerOf('mysql://u@h/db')).toThrow(/"mysql:".*file:.*postgresql:\/\//);
    expect(() => providerOf('./data/platform.db')).toThrow(/Unsupported database URL/);
  });
});

describe('sqliteFilePath', () => {
  it('resolves relative paths against the cwd given', () => {
    expect(sqliteFilePath('file:./data/platform.db', '/srv/app')).toBe('/srv/app/data/platform.db');
    expect(sqliteFilePath('file:data.db', '/srv')).toBe('/srv/data.db');
  });

  it('keeps absolute paths, with one or three slashes', () => {
    expect(sqliteFilePath('file:/var/db/x.db', '/srv')).toBe('/var/db/x.db');
    expect(sqliteFilePath('file:///var/db/x.db', '/srv')).toBe('/var/db/x.db');
  });

  it('refuses remote hosts, query strings and in-memory databases', () => {
    expect(() => sqliteFilePath('file://example.com/x.db')).toThrow(/remote host/);
    expect(() => sqliteFilePath('file:x.db?mode=ro')).toThrow(/query parameters/);
    expect(() => sqliteFilePath('file::memory:')).toThrow(/must name a file/);
  });
});

describe('rewriteSqliteMigration', () => {
  it('turns BIGINT primary keys into autoincrementing rowid aliases, also in table redefinitions', () => {
    const sql = [
      'CREATE TABLE "stores" (',
      '    "id" BIGINT NOT NULL PRIMARY KEY,',
      '    "merchant_id" BIGINT NOT NULL',
      ');',
      'CREATE TABLE "new_apps" (',
      '    "id" BIGINT NOT NULL PRIMARY KEY',
      ');',
    ].join('\n');
    const out = rewriteSqliteMigration(sql);
    expect(out).toContain('"id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,');
    expect(out).toContain('    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT\n);');
    expect(out).toContain('"merchant_id" BIGINT NOT NULL');
    expect(rewriteSqliteMigration(out)).toBe(out);
  });
});

describe('toPgPlaceholders', () => {
  it('numbers ? outside strings, identifiers and comments', () => {
    expect(toPgPlaceholders(`SELECT * FROM t WHERE a = ? AND b = '?' AND "c?" = ? -- ?\nLIMIT ? /* ? */`)).toBe(
      `SELECT * FROM t WHERE a = $1 AND b = '?' AND "c?" = $2 -- ?\nLIMIT $3 /* ? */`,
    );
  });
});

describe('parseSqliteDateTime', () => {
  it('reads every stored form as the same instant', () => {
    const instant = new Date('2026-11-22T04:05:01.000Z');
    expect(parseSqliteDateTime('2026-11-22T04:05:01.000+00:00')).toEqual(instant);
    expect(parseSqliteDateTime('2026-11-22 04:05:01')).toEqual(instant);
    expect(parseSqliteDateTime(instant.getTime())).toEqual(instant);
    expect(parseSqliteDateTime(BigInt(instant.getTime()))).toEqual(instant);
  });
});

describe('sqliteDateTimeText', () => {
  it('writes each instant as Prisma does, whichever instants came before (the text of recent ones is reused)', () => {
    const start = Date.parse('2026-11-22T04:05:01.000Z');
    // more distinct instants than are kept, each asked for twice through different Date objects
    for (let i = 0; i < 600; i++) {
      const ms = start + (i % 2 === 0 ? i : -i * 1001);
      const expected = new Date(ms).toISOString().replace('Z', '+00:00');
      expect(sqliteDateTimeText(new Date(ms))).toBe(expected);
      expect(sqliteDateTimeText(new Date(ms))).toBe(expected);
    }
    expect(sqliteDateTimeText(new Date(start))).toBe('2026-11-22T04:05:01.000+00:00');
    expect(() => sqliteDateTimeText(new Date(NaN))).toThrow(RangeError);
  });
});

describe('migrationTimestamp', () => {
  it('is the UTC time to the second', () => {
    expect(migrationTimestamp(new Date('2026-01-02T03:04:05.678Z'))).toBe('20260102030405');
  });
});

describe('redactUrl (issue 8 finding 6)', () => {
  it('hides the password of a URL and keeps the rest readable', () => {
    expect(redactUrl('postgresql://app:s3cret@db.internal:5432/platform')).toBe('postgresql://app:***@db.internal:5432/platform');
    expect(redactUrl('mysql://root:p%40ss@h/db')).toBe('mysql://root:***@h/db');
    expect(redactUrl('postgres://user@h/db')).toBe('postgres://user@h/db');
    expect(redactUrl('file:./data/platform.db')).toBe('file:./data/platform.db');
  });
});

describe('prepareSqliteFile (issue 8 finding 6)', () => {
  it('makes the folder 0700 and the file 0600, and narrows existing ones', () => {
    const root = mkdtempSync(join(tmpdir(), 'db-mode-'));
    try {
      const file = join(root, 'data', 'platform.db');
      prepareSqliteFile(file);
      expect(statSync(join(root, 'data')).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      chmodSync(file, 0o644);
      chmodSync(join(root, 'data'), 0o755);
      prepareSqliteFile(file);
      expect(statSync(join(root, 'data')).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('never narrows a folder it shares with other files, nor a sticky one such as /tmp', () => {
    const root = mkdtempSync(join(tmpdir(), 'db-mode-'));
    try {
      const shared = join(root, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o755);
      writeFileSync(join(shared, 'notes.txt'), 'not ours');
      prepareSqliteFile(join(shared, 'platform.db'));
      expect(statSync(shared).mode & 0o777).toBe(0o755);
      expect(statSync(join(shared, 'platform.db')).mode & 0o777).toBe(0o600);

      const sticky = join(root, 'sticky');
      mkdirSync(sticky);
      chmodSync(sticky, 0o1777);
      prepareSqliteFile(join(sticky, 'platform.db'));
      expect(statSync(sticky).mode & 0o7777).toBe(0o1777);
      expect(statSync(join(sticky, 'platform.db')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a migrated database and its WAL files are readable by the owner only', async () => {
    const root = mkdtempSync(join(tmpdir(), 'db-mode-'));
    try {
      const file = join(root, 'data', 'platform.db');
      await migrate(`file:${file}`);
      const db = createDb(`file:${file}`);
      await db.query('SELECT 1');
      for (const name of readdirSync(join(root, 'data'))) {
        expect(statSync(join(root, 'data', name)).mode & 0o077, name).toBe(0);
      }
      await db.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
