// `pnpm migrate` (node packages/db/dist/cli/migrate.js; the image's `migrate` command): applies
// pending migrations to DATABASE_URL, default file:./data/platform.db relative to the cwd
// (decisions §12.1), under the migration lock, so any number may run at once (issue 15). On
// PostgreSQL each migration is one transaction under a lock timeout, tried again when it times out
// (decisions §12.8; migration-script.ts).
import { z } from 'zod';
import { env, parseEnv, readSharedSettings } from '../settings';
import { migrate, MigrationLockTimeoutError } from '../migrate';
import { DEFAULT_MIGRATE_LOCK_ATTEMPTS, DEFAULT_MIGRATE_LOCK_TIMEOUT_MS } from '../migration-script';
import { DatabaseUnavailableError, describeDatabaseError, probeDatabase } from '../startup';

const ZMigrateEnv = z.object({
  PLATFORM_MIGRATE_LOCK_TIMEOUT_MS: env.integer(DEFAULT_MIGRATE_LOCK_TIMEOUT_MS, 100, 600_000),
  PLATFORM_MIGRATE_LOCK_ATTEMPTS: env.integer(DEFAULT_MIGRATE_LOCK_ATTEMPTS, 1, 100),
});

async function main(): Promise<void> {
  const problems: string[] = [];
  const { databaseUrl, sqliteDriver } = readSharedSettings(process.env, problems);
  const own = parseEnv(ZMigrateEnv, process.env);
  if (!own.ok) problems.push(...own.problems);
  if (problems.length > 0 || !own.ok) {
    console.error(`migrate: invalid environment: ${problems.join('; ')}`);
    process.exit(2);
  }
  try {
    await probeDatabase(databaseUrl);
    const { applied } = await migrate(databaseUrl, {
      sqliteDriver,
      lockTimeoutMs: own.value.PLATFORM_MIGRATE_LOCK_TIMEOUT_MS,
      lockAttempts: own.value.PLATFORM_MIGRATE_LOCK_ATTEMPTS,
      log: (line) => console.error(line),
    });
    console.log(applied.length === 0 ? 'Database is up to date.' : `Applied ${applied.length} migration(s): ${applied.join(', ')}`);
    // Done: end now. The schema engine (WebAssembly) leaves a 10 s timer of its own pending after
    // it is freed, which kept every `migrate` (each cluster start, each restore) alive 10 s more.
    process.exit(0);
  } catch (error) {
    const line =
      error instanceof DatabaseUnavailableError || error instanceof MigrationLockTimeoutError
        ? error.message
        : describeDatabaseError(error, databaseUrl);
    console.error(`migrate failed: ${line}`);
    process.exit(1);
  }
}

void main();
