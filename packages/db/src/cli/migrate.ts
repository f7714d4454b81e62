// `pnpm migrate` (node packages/db/dist/cli/migrate.js; the image's `migrate` command): applies
// pending migrations to DATABASE_URL, default file:./data/platform.db relative to the cwd
// (decisions §12.1), under the migration lock, so any number may run at once (issue 15).
import { readSharedSettings } from '../settings';
import { migrate } from '../migrate';
import { DatabaseUnavailableError, describeDatabaseError, probeDatabase } from '../startup';

async function main(): Promise<void> {
  const problems: string[] = [];
  const { databaseUrl, sqliteDriver } = readSharedSettings(process.env, problems);
  if (problems.length > 0) {
    console.error(`migrate: invalid environment: ${problems.join('; ')}`);
    process.exit(2);
  }
  try {
    await probeDatabase(databaseUrl);
    const { applied } = await migrate(databaseUrl, { sqliteDriver, log: (line) => console.error(line) });
    console.log(applied.length === 0 ? 'Database is up to date.' : `Applied ${applied.length} migration(s): ${applied.join(', ')}`);
  } catch (error) {
    const line = error instanceof DatabaseUnavailableError ? error.message : describeDatabaseError(error, databaseUrl);
    console.error(`migrate failed: ${line}`);
    process.exit(1);
  }
}

void main();
