// Shared flat config. Each package's eslint.config.mjs names its layer:
//   export default layered('domain');
// and gets the architecture guide's "nevers" for that layer as lint errors (docs/architecture.md):
// - domain imports nothing of ours (and does no I/O: no node:fs, node:net, node:http, databases);
// - contract never imports api, db, sdk or domain's callers; sdk never api or db;
// - apps never import each other;
// - in the API, a feature never reaches into another feature's repository, nor into another
//   room's tables (table-owners.mjs: one owner per table, named in models.prisma);
// - nowhere an import cycle of values (see the rule below; cycles through type-only imports, and the
//   floors of apps/api/src, are dependency-cruiser's, run after ESLint: floors.mjs).
// Each never holds for relative paths too: no file reaches into another package by a path
// (`../../apps/api/src/...`) at all, so a package is only ever imported by its name, where the
// layer's list judges it.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { tableOwnersRule } from './table-owners.mjs';

const OURS = ['@platform/contract', '@platform/domain', '@platform/db', '@platform/sdk', '@platform/api', '@platform/webhooks'];

/** What each layer may not import (package names; deep imports `@platform/x/...` too). */
const FORBIDDEN = {
  domain: { packages: OURS, message: 'packages/domain imports nothing of ours (docs/architecture.md)' },
  contract: {
    packages: OURS.filter((p) => p !== '@platform/contract' && p !== '@platform/domain'),
    message: 'packages/contract never imports the apps, db or sdk',
  },
  // The subpath entries import the main entry by its published name, `@platform/sdk` (external in the
  // build, so every entry shares its one copy); nothing else of the SDK by name.
  sdk: {
    packages: ['@platform/db', '@platform/api', '@platform/webhooks'],
    message: 'packages/sdk depends on contract and domain only',
  },
  db: {
    packages: ['@platform/api', '@platform/webhooks', '@platform/sdk', '@platform/contract'],
    message: 'packages/db is below the apps: it imports none of them',
  },
  api: { packages: ['@platform/webhooks'], message: 'apps never import each other (code both need goes into a package)' },
  webhooks: {
    packages: ['@platform/api', '@platform/contract'],
    message: 'apps never import each other (code both need goes into a package)',
  },
  tooling: { packages: OURS, message: 'tooling imports none of the packages' },
};

/** No I/O in the domain: the modules that would let it reach a disk, a network or a database. */
const IO_MODULES = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'child_process',
  'worker_threads',
  'pg',
  'better-sqlite3',
  '@libsql/client',
  '@prisma/client',
];

function restrictions(layer) {
  const forbidden = FORBIDDEN[layer];
  const patterns = forbidden.packages.map((name) => ({ group: [name, `${name}/**`], message: forbidden.message }));
  // Another app by a relative path is still another app.
  if (layer === 'sdk')
    patterns.push({ group: ['@platform/sdk/**'], message: 'the SDK imports only its main entry by name (@platform/sdk)' });
  if (layer === 'api') patterns.push({ group: ['**/apps/webhooks/**', '**/webhooks/src/**'], message: FORBIDDEN.api.message });
  if (layer === 'webhooks') patterns.push({ group: ['**/apps/api/**', '**/api/src/**'], message: FORBIDDEN.webhooks.message });
  if (layer === 'api') {
    // docs/architecture.md: features meet through services, never through another feature's repository.
    // `../other/x.repository` (or `../../other/...` from a feature's sub-folder); `../x.repository`
    // from a sub-folder is the feature's own.
    patterns.push({
      regex: '^(\\.\\./)+[^./][^/]*/.*\\.repository$',
      message: "a feature never imports another feature's repository: use that feature's service",
    });
  }
  const paths =
    layer === 'domain'
      ? IO_MODULES.flatMap((name) => [name, `node:${name}`]).map((name) => ({ name, message: 'packages/domain does no I/O' }))
      : [];
  return { patterns, paths };
}

/**
 * `tables` (the API only): `{ schema, sources }`, the models.prisma whose `/// owner:` lines name each
 * table's room, and the folder whose first-level folders are the rooms (table-owners.mjs).
 */
export function layered(layer, { tables } = {}) {
  if (!(layer in FORBIDDEN))
    throw new Error(`@platform/eslint-config: unknown layer '${layer}' (one of ${Object.keys(FORBIDDEN).join(', ')})`);
  return tseslint.config(
    { ignores: ['dist/**', 'generated/**', 'node_modules/**', '**/*.mjs'] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
      plugins: { 'import-x': importX },
      settings: {
        // TypeScript sources are followed and parsed, so cycles through .ts files are seen.
        'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
        'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
        'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.d.ts'] })],
      },
      rules: {
        '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
        '@typescript-eslint/consistent-type-imports': 'off',
        'no-restricted-imports': ['error', restrictions(layer)],
        // A relative path that leaves the file's package (the nearest package.json) is refused,
        // whatever the layers: packages meet through their names and `exports` only.
        'import-x/no-relative-packages': 'error',
        // import-x skips type-only imports (`import type`, or every specifier `type`) when it
        // looks for cycles: what this refuses is a cycle of values, in the editor too. `pnpm lint`
        // then runs floors.mjs (dependency-cruiser), which counts type-only imports as well.
        'import-x/no-cycle': ['error', { ignoreExternal: true }],
      },
    },
    ...(tables
      ? [{ plugins: { platform: { rules: { 'table-owners': tableOwnersRule } } }, rules: { 'platform/table-owners': ['error', tables] } }]
      : []),
  );
}

/** The layer-less config (kept for packages that have not named their layer). */
export default layered('tooling');
