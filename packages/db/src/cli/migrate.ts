// `node dist/cli/migrate.js` (or `pnpm --filter @platform/db run migrate`): applies pending
// migrations to DATABASE_URL, default file:./data/platform.db relative to the cwd (decisions §12.1).
import { migrate } from '../migrate';

const DEFAULT_DATABASE_URL = 'file:./data/platform.db';

async function main(): Promise<void> {
  const url = process.env['DATABASE_URL'] || DEFAULT_DATABASE_URL;
  const { applied } = await migrate(url, { log: (line) => console.error(line) });
  console.log(applied.length === 0 ? 'Database is up to date.' : `Applied ${applied.length} migration(s): ${applied.join(', ')}`);
}

main().catch((error: unknown) => {
  console.error(`migrate failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
