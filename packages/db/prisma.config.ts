// For Prisma CLI commands run by hand (generate, validate, format, studio). Migrations do not go
// through the CLI (it cannot download its engine here): see src/migrate.ts and README.md.
// PRISMA_PROVIDER picks the schema folder (default sqlite).
import { defineConfig } from 'prisma/config';

const provider = process.env['PRISMA_PROVIDER'] === 'postgresql' ? 'postgresql' : 'sqlite';

export default defineConfig({
  schema: `prisma/${provider}`,
  migrations: { path: `prisma/${provider}/migrations` },
  datasource: { url: process.env['DATABASE_URL'] ?? 'file:./data/platform.db' },
});
