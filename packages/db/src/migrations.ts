import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentSchemaFiles, lockfileContent, NO_FILTER, withOfflineEngine, type SchemaFile } from './engine';
import { rewriteSqliteMigration } from './migration-sql';
import { migrationsDir, snapshotPath } from './paths';
import type { Provider } from './provider';

export const PROVIDERS: readonly Provider[] = ['sqlite', 'postgresql'];

const EMPTY_MIGRATION = /^\s*-- This is an empty migration\.\s*$/;

/** One text holding the whole schema, as stored in the snapshot. */
function joinSchema(files: SchemaFile[]): string {
  return files.map((f) => f.content.trimEnd()).join('\n\n') + '\n';
}

/**
 * SQL that takes a database from the last migration's schema (its snapshot, or nothing) to the
 * current models, for one provider; '' when nothing changed. No database needed.
 */
export async function pendingMigrationSql(provider: Provider): Promise<string> {
  const current = currentSchemaFiles(provider);
  const snapshot = existsSync(snapshotPath(provider)) ? readFileSync(snapshotPath(provider), 'utf8') : undefined;
  const result = await withOfflineEngine(current, (engine) =>
    engine.diff({
      from: snapshot === undefined ? { tag: 'empty' } : { tag: 'schemaDatamodel', files: [{ path: 'snapshot.prisma', content: snapshot }] },
      to: { tag: 'schemaDatamodel', files: current },
      script: true,
      exitCode: null,
      filters: NO_FILTER,
    }),
  );
  const sql = result.stdout ?? '';
  if (EMPTY_MIGRATION.test(sql) || sql.trim() === '') return '';
  return provider === 'sqlite' ? rewriteSqliteMigration(sql) : sql;
}

/** `20260101120000`: migration folders sort by creation time, like Prisma's. */
export function migrationTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export interface CreatedMigration {
  provider: Provider;
  directory: string;
}

/**
 * Writes `<timestamp>_<name>/migration.sql` for every provider whose schema changed since its
 * snapshot, with migration_lock.toml and the new snapshot. Both providers share one timestamp.
 */
export async function createMigration(name: string, now: Date = new Date()): Promise<CreatedMigration[]> {
  if (!/^[a-z0-9][a-z0-9_]*$/.test(name)) {
    throw new Error(`Migration name must be snake_case letters and digits (got ${JSON.stringify(name)})`);
  }
  const folder = `${migrationTimestamp(now)}_${name}`;
  const pending = await Promise.all(PROVIDERS.map(async (provider) => ({ provider, sql: await pendingMigrationSql(provider) })));
  const created: CreatedMigration[] = [];
  for (const { provider, sql } of pending) {
    if (sql === '') continue;
    const base = migrationsDir(provider);
    const directory = join(base, folder);
    if (existsSync(directory)) throw new Error(`${directory} already exists`);
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, 'migration.sql'), sql);
    writeFileSync(join(base, 'migration_lock.toml'), lockfileContent(provider));
    writeFileSync(
      snapshotPath(provider),
      `// Schema as of migration ${folder}: the next migration diffs from it. Written by migration:new; do not edit.\n\n` +
        joinSchema(currentSchemaFiles(provider)),
    );
    created.push({ provider, directory });
  }
  return created;
}
