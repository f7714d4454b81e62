// `@platform/db/testing`: databases for the apps' test suites (their devDependency on this package).
// Each test file wants a database of its own with the schema applied. Applying the migrations through
// the schema engine costs 0.1-0.2 s of CPU per SQLite file and 0.4 s per PostgreSQL database (and
// half a second more to load the engine in a process that has not yet), so a process migrates one
// template once and each database after it is a copy: a file copy on SQLite, `CREATE DATABASE ...
// TEMPLATE` on PostgreSQL. The copies carry `_prisma_migrations`, so a program started on one finds
// no migration pending, as on any current schema. Migrating itself is tested where it is the subject
// (packages/db, the start tests), on empty databases.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migrate } from './migrate';

export interface TestDatabase {
  url: string;
  /** Removes the database (its folder, or DROP DATABASE ... WITH (FORCE)). */
  drop(): Promise<void>;
}

/** One statement on the PostgreSQL server of `serverUrl` (CREATE or DROP DATABASE ...), on a connection of its own. */
export async function onServer(serverUrl: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** `serverUrl` with the database `name` in its path. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** An empty database: a SQLite file (not yet created) in a temp folder, or a new PostgreSQL database on `pgUrl`'s server. */
export async function emptyTestDatabase(options: { prefix: string; pgUrl?: string | undefined }): Promise<TestDatabase> {
  const { pgUrl, prefix } = options;
  if (pgUrl) {
    const name = `${prefix}_${randomBytes(6).toString('hex')}`;
    await onServer(pgUrl, `CREATE DATABASE ${name}`);
    return {
      url: databaseUrl(pgUrl, name),
      drop: async () => void (await onServer(pgUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `platform-${prefix}-`));
  return { url: `file:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

let sqliteTemplate: Promise<string> | undefined;
const pgTemplates = new Map<string, Promise<string>>();

/** The folder of a SQLite template: `platform-template-<pid of the process that made it>-<random>`. */
const SQLITE_TEMPLATE_DIR = /^platform-template-(\d+)-/;

/**
 * Folders of SQLite templates whose process is gone, removed. A process removes its own when it
 * exits, but a test worker ended by a signal (vitest stops its workers so) runs no exit handler:
 * each such run left a folder of about 400 KB in the temp folder, for ever.
 */
export function removeOrphanSqliteTemplates(dir = tmpdir()): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    const pid = Number(SQLITE_TEMPLATE_DIR.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** This process's migrated SQLite template: checkpointed, so the file alone holds the whole schema. */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    removeOrphanSqliteTemplates();
    const dir = mkdtempSync(join(tmpdir(), `platform-template-${process.pid}-`));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'template.db');
    await migrate(`file:${file}`);
    // The file is in WAL mode (migrate sets it, and it stays with the file and its copies). Fold
    // the log into the file and close, so a copy of the file alone is the whole database.
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    if (existsSync(`${file}-wal`)) throw new Error(`the SQLite template ${file} kept its WAL file after a checkpoint`);
    return file;
  })();
  sqliteTemplate.catch(() => (sqliteTemplate = undefined));
  return sqliteTemplate;
}

/**
 * This process's migrated PostgreSQL template on `pgUrl`'s server, named after this machine and
 * process. Templates of this machine's processes that are gone (an interrupted run) are dropped
 * first, so they do not pile up; another machine's, on a server both use, are left to it.
 */
function pgTemplate(pgUrl: string): Promise<string> {
  let template = pgTemplates.get(pgUrl);
  if (!template) {
    template = (async () => {
      const machine = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
      const leftovers = await onServer(pgUrl, `SELECT datname FROM pg_database WHERE datname LIKE 'tpl\\_${machine}\\_%'`);
      for (const { datname } of leftovers.rows as { datname: string }[]) {
        const pid = Number(/^tpl_[0-9a-f]+_(\d+)_/.exec(datname)?.[1]);
        if (Number.isInteger(pid) && !processAlive(pid)) await onServer(pgUrl, `DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      }
      const name = `tpl_${machine}_${process.pid}_${randomBytes(4).toString('hex')}`;
      await onServer(pgUrl, `CREATE DATABASE ${name}`);
      await migrate(databaseUrl(pgUrl, name));
      return name;
    })();
    template.catch(() => pgTemplates.delete(pgUrl));
    pgTemplates.set(pgUrl, template);
  }
  return template;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A fresh database with every migration applied: a SQLite file in a temp folder, or, with `pgUrl`
 * (a server's URL, e.g. TEST_DATABASE_URL), a new database on that server. Either is a copy of a
 * template this process migrated once.
 */
export async function migratedTestDatabase(options: { prefix: string; pgUrl?: string | undefined }): Promise<TestDatabase> {
  const { pgUrl, prefix } = options;
  if (pgUrl) {
    const template = await pgTemplate(pgUrl);
    const name = `${prefix}_${randomBytes(6).toString('hex')}`;
    // Nobody is connected to a template after its migration, which CREATE DATABASE ... TEMPLATE needs.
    await onServer(pgUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
    return {
      url: databaseUrl(pgUrl, name),
      drop: async () => void (await onServer(pgUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
    };
  }
  const template = await sqliteTemplateFile();
  const database = await emptyTestDatabase({ prefix });
  copyFileSync(template, database.url.slice('file:'.length));
  return database;
}
