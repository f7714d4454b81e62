import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwawayPgDatabase, TIMEOUT } from './databases.test-support';
import { createDb, migrate, type Db } from './index';

const pgUrl = process.env['TEST_DATABASE_URL'];

// Db.query on PostgreSQL prepares each statement text on the pooled connection it runs on
// (docs/performance.md): planned once per connection, and still right after the schema changes.
describe.runIf(pgUrl?.startsWith('postgres'))('PostgreSQL prepared statements (TEST_DATABASE_URL)', () => {
  const database = throwawayPgDatabase(pgUrl, 'platform_db_prepared');
  let db: Db;

  beforeAll(async () => {
    await database.create();
    await migrate(database.url());
    db = createDb(database.url());
  }, TIMEOUT);
  afterAll(async () => {
    await db?.close();
    await database.drop();
  }, TIMEOUT);

  it(
    'a statement asked to be prepared is prepared on its connection and answers each call with its own values; others are not',
    async () => {
      const read = 'SELECT ?::bigint * 2 AS doubled';
      expect(await db.query(read, [21n], { prepare: true })).toEqual([{ doubled: 42n }]);
      expect(await db.query(read, [5n], { prepare: true })).toEqual([{ doubled: 10n }]);
      expect(await db.query('SELECT ?::bigint * 3 AS tripled', [5n])).toEqual([{ tripled: 15n }]);
      // One query at a time: the pool hands back the connection that prepared it.
      const prepared = await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements WHERE statement = ?', [
        'SELECT $1::bigint * 2 AS doubled',
      ]);
      expect(prepared).toHaveLength(1);
    },
    TIMEOUT,
  );

  it(
    'runs without JIT compilation on every connection, the pool and Prisma alike (compiling cost 30-50 ms a statement)',
    async () => {
      expect(await db.query('SHOW jit')).toEqual([{ jit: 'off' }]);
      expect(await db.prisma.$queryRawUnsafe('SHOW jit')).toEqual([{ jit: 'off' }]);
      // An operator's own `options=` in the URL is theirs: the platform adds nothing to it.
      const own = createDb(`${database.url()}${database.url().includes('?') ? '&' : '?'}options=-c%20jit%3Don`);
      try {
        expect(await own.query('SHOW jit')).toEqual([{ jit: 'on' }]);
      } finally {
        await own.close();
      }
    },
    TIMEOUT,
  );

  it(
    'a prepared statement still answers after its table gains a column (a migration while running)',
    async () => {
      await db.query('CREATE TABLE prepared_probe (id bigint PRIMARY KEY, label text)');
      await db.query('INSERT INTO prepared_probe (id, label) VALUES (?, ?)', [1n, 'one']);
      const read = 'SELECT id, label FROM prepared_probe WHERE id = ?';
      expect(await db.query(read, [1n], { prepare: true })).toEqual([{ id: 1n, label: 'one' }]);
      await db.query('ALTER TABLE prepared_probe ADD COLUMN extra text');
      await db.query('UPDATE prepared_probe SET label = ? WHERE id = ?', ['uno', 1n]);
      expect(await db.query(read, [1n], { prepare: true })).toEqual([{ id: 1n, label: 'uno' }]);
    },
    TIMEOUT,
  );

  it(
    'more statement texts than the limit of prepared ones all still answer (the rest run unnamed)',
    async () => {
      for (let i = 0; i < 520; i++) {
        expect(await db.query(`SELECT ?::int + ${i} AS n`, [1], { prepare: true })).toEqual([{ n: BigInt(1 + i) }]);
      }
    },
    TIMEOUT,
  );
});
