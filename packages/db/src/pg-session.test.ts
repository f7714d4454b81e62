import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOW, throwawayPgDatabase, TIMEOUT } from './databases.test-support';
import { openPgSession } from './index';

// openPgSession (pg-session.ts): a PostgreSQL connection of its own with Db.query's conventions,
// its statements prepared, and scripts of several statements in one round trip (postgresql.ts, pgScript).

const pgUrl = process.env['TEST_DATABASE_URL'];

describe.runIf(pgUrl?.startsWith('postgres'))('openPgSession (TEST_DATABASE_URL)', () => {
  const database = throwawayPgDatabase(pgUrl, 'platform_pg_session_test');
  const url = () => database.url();

  beforeAll(() => database.create(), TIMEOUT);
  afterAll(() => database.drop(), TIMEOUT);

  it(
    'openPgSession runs a script of statements in one round trip, parameters as the server reads them, prepared again on a new connection',
    async () => {
      const session = openPgSession(url());
      try {
        const tricky = ["it's", 'back\\slash', 'comma, "quoted" {brace}', ''];
        const read = {
          sql: 'SELECT ?::bigint AS n, ?::timestamp AS at, ?::text[] AS words, ?::bigint[] AS ids, ?::text AS nothing, ?::text AS word',
          params: [5n, NOW, tricky, ['1', '9007199254740993'], null, "'; SELECT 1; --"],
        };
        const expected = [{ n: 5n, at: NOW, words: tricky, ids: ['1', '9007199254740993'], nothing: null, word: "'; SELECT 1; --" }];
        const [begun, rows, rolled] = await session.script(['BEGIN', read, 'ROLLBACK']);
        expect(begun).toEqual([]);
        expect(rows).toEqual(expected);
        expect(rolled).toEqual([]);
        // The statements run in order, in the transaction the script opened and ended.
        const setting = { sql: 'SELECT set_config(?, ?, true) AS v', params: ['platform.probe', 'set'] };
        const inside = await session.script(['BEGIN', setting, "SELECT current_setting('platform.probe') AS v", 'ROLLBACK']);
        expect(inside).toEqual([[], [{ v: 'set' }], [{ v: 'set' }], []]);
        expect(await session.query("SELECT current_setting('platform.probe', true) AS v WHERE ? = 1", [1])).toEqual([{ v: '' }]);
        // A failing part stops the script: what follows it does not run.
        await expect(session.script(['BEGIN', { sql: 'SELECT 1 / ?::int AS x', params: [0] }, 'COMMIT'])).rejects.toThrow(
          /division by zero/,
        );
        expect(await session.query('SELECT 1 AS one WHERE ? = 1', [1]).catch((e: Error) => e.message)).toMatch(/aborted/);
        await session.query('ROLLBACK');
        const [own] = await session.query<{ pid: bigint }>('SELECT pg_backend_pid() AS pid WHERE ? = 1', [1]);
        await database.admin('SELECT pg_terminate_backend($1, 5000)', [Number(own!.pid)]);
        await session.query('SELECT 1 WHERE ? = 1', [1]).catch(() => undefined);
        // The new connection has no prepared statements: the script prepares its part again.
        expect(await session.script([read])).toEqual([expected]);
        // Texts beyond those kept prepared (500) still run, each prepared for its script alone.
        for (let i = 0; i < 501; i++) {
          const sum = { sql: `SELECT ?::int + ${i} AS n`, params: [1] };
          expect(await session.script(['SELECT 1 AS first', sum, 'SELECT 2 AS last'])).toEqual([
            [{ first: 1n }],
            [{ n: BigInt(i + 1) }],
            [{ last: 2n }],
          ]);
        }
        const kept = await session.query<{ n: bigint }>(
          "SELECT COUNT(*) AS n FROM pg_prepared_statements WHERE name LIKE 'script%' AND ? = 1",
          [1],
        );
        expect(Number(kept[0]!.n)).toBe(500);
      } finally {
        await session.close();
      }
    },
    TIMEOUT,
  );

  it(
    'a script without BEGIN is one transaction: a lock its first part takes is held until the script ends, and a failure undoes every part',
    async () => {
      const session = openPgSession(url());
      const other = openPgSession(url());
      try {
        await session.query('CREATE TABLE IF NOT EXISTS script_probe (n int)');
        const key = 7_311_099;
        // The script holds the lock while its second part sleeps; another session asks for it meanwhile.
        const held = session.script([
          `SELECT pg_advisory_xact_lock(${key})`,
          { sql: 'SELECT pg_sleep(?::float8) AS slept', params: [0.5] },
        ]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const [during] = await other.script([{ sql: 'SELECT pg_try_advisory_xact_lock(?::bigint) AS got', params: [key] }]);
        expect(during).toEqual([{ got: false }]);
        expect((await held).length).toBe(2);
        // Released at the script's end (its transaction committed): the other session takes it now.
        const [after] = await other.script([{ sql: 'SELECT pg_try_advisory_xact_lock(?::bigint) AS got', params: [key] }]);
        expect(after).toEqual([{ got: true }]);
        // A failing part rolls back the parts before it, and the parts after it do not run.
        const insert = { sql: 'INSERT INTO script_probe (n) VALUES (?::int)', params: [1] };
        const fails = { sql: 'SELECT 1 / ?::int AS x', params: [0] };
        const neverParsed = { sql: 'INSERT INTO script_probe (n) SELECT ?::int + 100', params: [2] };
        await expect(session.script([insert, fails, neverParsed])).rejects.toThrow(/division by zero/);
        expect(await session.query('SELECT COUNT(*) AS n FROM script_probe WHERE ? = 1', [1])).toEqual([{ n: 0n }]);
        // The part after the failure was never parsed by the server: the next script parses it again.
        expect(await session.script([insert, neverParsed])).toEqual([[], []]);
        expect(await session.query('SELECT n FROM script_probe WHERE ? = 1 ORDER BY n', [1])).toEqual([{ n: 1n }, { n: 102n }]);
      } finally {
        await session.close();
        await other.close();
      }
    },
    TIMEOUT,
  );

  it(
    'openPgSession keeps Db.query conventions on a connection of its own, and opens another when it is lost',
    async () => {
      const session = openPgSession(url());
      try {
        const read = 'SELECT ?::bigint AS n, ?::timestamp AS at';
        expect(await session.query(read, [5n, NOW])).toEqual([{ n: 5n, at: NOW }]);
        expect(await session.query(read, [6n, NOW])).toEqual([{ n: 6n, at: NOW }]); // the prepared statement again
        const [own] = await session.query<{ pid: bigint }>('SELECT pg_backend_pid() AS pid WHERE ? = 1', [1]);
        // Waits (up to 5 s) until the backend is gone: without the wait the next query could still be
        // answered by it, and the one after meet the dead connection (an occasional failure here).
        await database.admin('SELECT pg_terminate_backend($1, 5000)', [Number(own!.pid)]);
        // The query that meets the dead connection may fail; the next one runs on a new connection.
        await session.query(read, [7n, NOW]).catch(() => undefined);
        expect(await session.query(read, [8n, NOW])).toEqual([{ n: 8n, at: NOW }]);
        const [again] = await session.query<{ pid: bigint }>('SELECT pg_backend_pid() AS pid WHERE ? = 1', [1]);
        expect(again!.pid).not.toBe(own!.pid);
      } finally {
        await session.close();
      }
    },
    TIMEOUT,
  );
});
