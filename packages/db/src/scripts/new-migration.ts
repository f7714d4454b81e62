// `pnpm --filter @platform/db run migration:new <name>`: writes the next migration for both
// providers from the difference between prisma/models.prisma and each provider's snapshot.
import { relative } from 'node:path';
import { createMigration } from '../migrations';
import { packageRoot } from '../paths';

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name) {
    console.error('usage: pnpm --filter @platform/db run migration:new <snake_case_name>');
    process.exit(2);
  }
  const created = await createMigration(name);
  if (created.length === 0) {
    console.log('No schema changes since the last migration; nothing written.');
    return;
  }
  for (const { provider, directory } of created) {
    console.log(`${provider}: ${relative(packageRoot(), directory)}/migration.sql`);
  }
  if (created.length === 1) console.log('Only one provider changed: check that the models are provider-neutral.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
