// Build step before tsc: copy the provider-neutral models into each provider's schema folder and
// run `prisma generate` for both. The CLI only needs PRISMA_SCHEMA_ENGINE_BINARY to name an existing
// file (it never runs it for generate); engines cannot be downloaded here (toolchain guide, Prisma).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const prismaCli = join(dirname(require.resolve('prisma/package.json')), 'build', 'index.js');
const providers = ['sqlite', 'postgresql'];

const models = readFileSync(join(root, 'prisma', 'models.prisma'), 'utf8');
for (const provider of providers) {
  const header = '// GENERATED from ../models.prisma by scripts/generate.mjs. Do not edit.\n\n';
  writeFileSync(join(root, 'prisma', provider, 'models.prisma'), header + models);
}

const only = process.argv.includes('--copy-only');
if (!only) {
  for (const provider of providers) {
    const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', join('prisma', provider), '--no-hints'], {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? join(root, 'package.json'),
        CHECKPOINT_DISABLE: '1',
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
      },
    });
    if (result.status !== 0) {
      console.error(`prisma generate failed for ${provider}`);
      process.exit(result.status ?? 1);
    }
  }
}
