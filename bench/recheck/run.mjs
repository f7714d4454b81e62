#!/usr/bin/env node
// bench/recheck (issue 17): the background re-check of metafield values (decisions §8.12) end to
// end through the API (a definition's rules change; timed until its job is done, read in the
// database), against a bare loop in the same run (read the rows in keyset batches, validate them
// with the same domain function, write the verdicts with a prepared statement, one transaction per
// batch); and the bulk set (metafieldsSet, 25 entries a request, decisions §8.9) against a bare
// prepared upsert loop. SQLite and PostgreSQL. One command: `pnpm bench:recheck`. Results:
// bench/results/recheck.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import domain from '@platform/domain';
import { openSql, operatorPost, root, startApi, VERSION, writeResults } from '../lib/harness.mjs';
import { startPostgres } from '../lib/postgres.mjs';

const require = createRequire(import.meta.url);
const VALUES = Number(process.env.BENCH_RECHECK_VALUES ?? 100_000);
const SET_REQUESTS = Number(process.env.BENCH_SET_REQUESTS ?? 200);
const PER_SET = 25;
const BARE_BATCH = 1000;
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgresql').split(',');
const GOAL = 0.5;
const WHY =
  'the platform re-checks inside the API process beside its requests: it holds the job under a lease, fences every verdict on the value it read ' +
  '(type and text compared again in the write), gives the event loop back between values and keeps each batch under 2 MB; the bare loop does none of that';
/** Values 1..VALUES; the new rule refuses the upper half. */
const NEW_MAX = Math.floor(VALUES / 2);

const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

function admin(origin, token) {
  return async (method, path, body) => {
    const r = await fetch(`${origin}/admin/openapi/${VERSION}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
}

/**
 * Store `recheck`, an app with the value scopes, two definitions (bench.score: the re-checked one;
 * bench.set: the bulk set's), VALUES + the bulk set's products, and VALUES values of bench.score
 * (1..VALUES, all valid under max VALUES). Products after the first are SQL copies of it (their
 * stored listing documents too: no listing is served here); the values are written in SQL.
 */
async function seed(database) {
  const api = await startApi(database);
  await operatorPost(api.origin, '/stores', { store: { handle: 'recheck', name: 'Recheck' } });
  const scopes = ['read_products', 'write_products', 'read_metafields', 'write_metafields'];
  const app = await operatorPost(api.origin, '/apps', { app: { name: 'recheck', kind: 'private', scopes, store_handle: 'recheck' } });
  await operatorPost(api.origin, '/stores/recheck/products', { products: [{ title: 'Owner', vendor: 'Bench' }] });
  const call = admin(api.origin, app.access_token);
  const define = (key, max) =>
    call('POST', '/metafield_definition.json', {
      definition: {
        owner_resource: 'products',
        namespace: 'bench',
        key,
        name: key,
        type: 'number_integer',
        validations: [{ name: 'max', value: String(max) }],
      },
    });
  const score = (await define('score', VALUES)).definition;
  await define('set', 1_000_000);
  await api.stop();

  const sql = await openSql(database);
  const [{ id: storeId }] = await sql.run("SELECT id FROM stores WHERE handle = 'recheck'");
  const want = VALUES + SET_REQUESTS * PER_SET;
  for (
    let [{ n }] = await sql.run('SELECT COUNT(*) AS n FROM products WHERE store_id = ?', [storeId]);
    Number(n) < want;
    [{ n }] = await sql.run('SELECT COUNT(*) AS n FROM products WHERE store_id = ?', [storeId])
  ) {
    await sql.run(
      `INSERT INTO products (store_id, handle, title, status, doc, listing_doc, listing_zone, published_at, created_at, updated_at)
       SELECT store_id, handle, title, status, doc, listing_doc, listing_zone, published_at, created_at, updated_at FROM products WHERE store_id = ? ORDER BY id LIMIT ?`,
      [storeId, Math.min(Number(n), want - Number(n))],
    );
  }
  const [{ rules_revision: revision }] = await sql.run('SELECT rules_revision FROM metafield_definitions WHERE id = ?', [score.id]);
  await sql.run(
    `INSERT INTO metafields (store_id, owner_resource, owner_id, namespace, key, type, value, definition_id, valid, invalid_reasons, checked_revision, created_at, updated_at)
     SELECT store_id, 'products', id, 'bench', 'score', 'number_integer', CAST(id AS TEXT), ?, true, '[]', ?, created_at, updated_at
     FROM products WHERE store_id = ? ORDER BY products.id LIMIT ?`,
    [score.id, revision, storeId, VALUES],
  );
  const owners = (
    await sql.run('SELECT id FROM products WHERE store_id = ? ORDER BY id DESC LIMIT ?', [storeId, SET_REQUESTS * PER_SET])
  ).map((r) => String(r.id));
  await sql.close();
  return { token: app.access_token, definitionId: score.id, storeId: String(storeId), owners };
}

/** The platform: the bulk set (creates, then overwrites), then the re-check, timed through the API. */
async function throughApi(database, seeded) {
  // BENCH_API_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the API process
  const nodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const api = await startApi(database, { PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '250' }, { nodeArgs });
  const call = admin(api.origin, seeded.token);
  const bodies = (round) =>
    Array.from({ length: SET_REQUESTS }, (_, r) => ({
      metafields: seeded.owners.slice(r * PER_SET, (r + 1) * PER_SET).map((owner, i) => ({
        owner_resource: 'products',
        owner_id: owner,
        namespace: 'bench',
        key: 'set',
        value: String(round * 1000 + i),
      })),
    }));
  const setRate = async (round) => {
    const all = bodies(round);
    const started = performance.now();
    for (const body of all) await call('POST', '/metafields_set.json', body);
    return (SET_REQUESTS * PER_SET) / ((performance.now() - started) / 1000);
  };
  const created = await setRate(1);
  const overwritten = await setRate(2);

  const sql = await openSql(database);
  const job = async () =>
    (await sql.run('SELECT status FROM metafield_rechecks WHERE definition_id = ? ORDER BY id DESC LIMIT 1', [seeded.definitionId]))[0];
  const started = performance.now();
  await call('PUT', '/metafield_definition.json', {
    definition: { owner_resource: 'products', namespace: 'bench', key: 'score', validations: [{ name: 'max', value: String(NEW_MAX) }] },
  });
  while ((await job())?.status !== 'done') await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  const [{ n: invalid }] = await sql.run('SELECT COUNT(*) AS n FROM metafields WHERE definition_id = ? AND NOT valid', [
    seeded.definitionId,
  ]);
  if (Number(invalid) !== VALUES - NEW_MAX) throw new Error(`the re-check marked ${invalid} values invalid, expected ${VALUES - NEW_MAX}`);
  await sql.close();
  await api.stop();
  return { recheck: VALUES / seconds, seconds, created, overwritten };
}

/** The validator of the definition as stored, compiled by the domain as the API compiles it. */
function validatorOf(definition) {
  const compiled = domain.tryCompileValidator({ type: definition.type, validations: JSON.parse(definition.validations) });
  if (!compiled.ok) throw new Error('the definition does not compile');
  return (value) => {
    const result = compiled.value(value, domain.RULES_ONLY);
    return result.ok ? { valid: true, reasons: '[]' } : { valid: false, reasons: JSON.stringify(result.issues.map((i) => i.message)) };
  };
}

const SQL = {
  definition: 'SELECT type, validations, rules_revision FROM metafield_definitions WHERE id = ?',
  batch: 'SELECT id, type, value FROM metafields WHERE definition_id = ? AND id > ? ORDER BY id LIMIT ?',
  verdict: 'UPDATE metafields SET valid = ?, invalid_reasons = ?, checked_revision = ? WHERE id = ? AND type = ? AND value = ?',
  upsert: `INSERT INTO metafields (store_id, owner_resource, owner_id, namespace, key, type, value, definition_id, valid, invalid_reasons, checked_revision, created_at, updated_at)
     VALUES (?, 'products', ?, 'bench', 'bare', 'number_integer', ?, NULL, ?, '[]', 0, ?, ?)
     ON CONFLICT (store_id, owner_resource, owner_id, namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
};

/** A bare program doing both: the re-check of the same values and the same entries upserted 25 a transaction, twice. */
async function bareLoop(database, seeded) {
  const validate = (definition) => validatorOf(definition);
  if (!database.includes('://')) {
    const Database = require('better-sqlite3');
    const db = new Database(database);
    const st = Object.fromEntries(Object.entries(SQL).map(([k, text]) => [k, db.prepare(text)]));
    let started = performance.now();
    const definition = st.definition.get(seeded.definitionId);
    const judge = validate(definition);
    const write = db.transaction((rows) => {
      for (const r of rows) {
        const v = judge(r.value);
        st.verdict.run(v.valid ? 1 : 0, v.reasons, definition.rules_revision, r.id, r.type, r.value);
      }
    });
    for (let cursor = 0, rows; (rows = st.batch.all(seeded.definitionId, cursor, BARE_BATCH)).length > 0; cursor = rows[rows.length - 1].id)
      write(rows);
    const recheck = VALUES / ((performance.now() - started) / 1000);
    const set = db.transaction((owners, round) => {
      const now = new Date().toISOString().replace('Z', '+00:00');
      owners.forEach((owner, i) =>
        st.upsert.run(seeded.storeId, owner, String(round * 1000 + i), judge(String(i)).valid ? 1 : 0, now, now),
      );
    });
    const rates = [];
    for (const round of [1, 2]) {
      started = performance.now();
      for (let r = 0; r < SET_REQUESTS; r++) set(seeded.owners.slice(r * PER_SET, (r + 1) * PER_SET), round);
      rates.push((SET_REQUESTS * PER_SET) / ((performance.now() - started) / 1000));
    }
    db.close();
    return { recheck, created: rates[0], overwritten: rates[1] };
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  const named = Object.fromEntries(
    Object.entries(SQL).map(([k, text]) => {
      let n = 0;
      return [k, { name: `bare_${k}`, text: text.replace(/\?/g, () => `$${++n}`) }];
    }),
  );
  const q = async (k, values) => (await client.query({ ...named[k], values })).rows;
  let started = performance.now();
  const [definition] = await q('definition', [seeded.definitionId]);
  const judge = validate(definition);
  for (
    let cursor = '0', rows;
    (rows = await q('batch', [seeded.definitionId, cursor, BARE_BATCH])).length > 0;
    cursor = rows[rows.length - 1].id
  ) {
    await client.query('BEGIN');
    for (const r of rows) {
      const v = judge(r.value);
      await q('verdict', [v.valid, v.reasons, definition.rules_revision, r.id, r.type, r.value]);
    }
    await client.query('COMMIT');
  }
  const recheck = VALUES / ((performance.now() - started) / 1000);
  const rates = [];
  for (const round of [1, 2]) {
    started = performance.now();
    for (let r = 0; r < SET_REQUESTS; r++) {
      const now = new Date();
      await client.query('BEGIN');
      const owners = seeded.owners.slice(r * PER_SET, (r + 1) * PER_SET);
      for (const [i, owner] of owners.entries())
        await q('upsert', [seeded.storeId, owner, String(round * 1000 + i), judge(String(i)).valid, now, now]);
      await client.query('COMMIT');
    }
    rates.push((SET_REQUESTS * PER_SET) / ((performance.now() - started) / 1000));
  }
  await client.end();
  return { recheck, created: rates[0], overwritten: rates[1] };
}

const rows = [];
for (const kind of DATABASES) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-recheck-'));
    const file = join(dir, 'recheck.db');
    const seeded = await seed(file);
    const platform = await throughApi(file, seeded);
    rows.push({ kind: 'SQLite (better-sqlite3)', platform, bare: await bareLoop(file, seeded) });
    rmSync(dir, { recursive: true, force: true });
    console.log(kind, JSON.stringify(rows.at(-1)));
  } else {
    const pg = await startPostgres('recheck');
    const seeded = await seed(pg.url);
    const platform = await throughApi(pg.url, seeded);
    rows.push({ kind: 'PostgreSQL', platform, bare: await bareLoop(pg.url, seeded) });
    await pg.stop();
    console.log(kind, JSON.stringify(rows.at(-1)));
  }
}

const f = (n) => Math.round(n).toLocaleString('en-US');
const x = (a, b) => `${(a / b).toFixed(2)}x`;
const lines = [
  `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, load average ${loadavg()[0].toFixed(2)} at the end; ` +
    `${VALUES.toLocaleString('en-US')} values of one definition re-checked after its rules changed (half become invalid), ` +
    `and ${SET_REQUESTS} bulk sets of ${PER_SET} entries, creating then overwriting.`,
  '',
  `Goal: the re-check at least ${GOAL}x the bare loop, because ${WHY}.`,
  '',
  '| Database | Re-check through the API, values/s | Bare loop, values/s | API / bare | Goal | |',
  '|---|---:|---:|---:|---:|---|',
  ...rows.map(
    (r) =>
      `| ${r.kind} | ${f(r.platform.recheck)} (${r.platform.seconds.toFixed(1)} s) | ${f(r.bare.recheck)} | ${x(r.platform.recheck, r.bare.recheck)} | >= ${GOAL}x | ${r.platform.recheck / r.bare.recheck >= GOAL ? 'met' : '**not met**'} |`,
  ),
  '',
  'Bulk set (no goal set; figures for issue 17): entries/s, one request of 25 after the other; the bare loop is a prepared upsert per entry, one transaction per 25.',
  '',
  '| Database | Bulk set, creating | Bare | API / bare | Bulk set, overwriting | Bare | API / bare |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.kind} | ${f(r.platform.created)} | ${f(r.bare.created)} | ${x(r.platform.created, r.bare.created)} | ${f(r.platform.overwritten)} | ${f(r.bare.overwritten)} | ${x(r.platform.overwritten, r.bare.overwritten)} |`,
  ),
];
writeResults('recheck', lines.join('\n'));
