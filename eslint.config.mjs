// `pnpm lint` (turbo's `//#lint`): every package's own eslint.config.mjs, each applied to its own
// folder, in one ESLint process. Seven processes (one per package) spent about 3.5 s of CPU each
// starting ESLint and typescript-eslint before reading a file (2026-11-27). Editors and
// `npx eslint` inside a package still use that package's file alone.
import { fileURLToPath } from 'node:url';
import contract from './packages/contract/eslint.config.mjs';
import db from './packages/db/eslint.config.mjs';
import domain from './packages/domain/eslint.config.mjs';
import sdk from './packages/sdk/eslint.config.mjs';
import api from './apps/api/eslint.config.mjs';
import webhooks from './apps/webhooks/eslint.config.mjs';

const SOURCES = '**/*.{ts,tsx,mts,cts,js,mjs,cjs}';

/** One package's flat config, its patterns made relative to the repository's root. */
function inFolder(folder, configs) {
  const under = (pattern) => (pattern.startsWith('!') ? `!${folder}/${pattern.slice(1)}` : `${folder}/${pattern}`);
  return configs
    .map((config) => {
      const keys = Object.keys(config).filter((k) => k !== 'name');
      // A config of ignores alone ignores them everywhere: here, everywhere in its folder.
      if (keys.length === 1 && keys[0] === 'ignores') return { ...config, ignores: config.ignores.map(under) };
      const scoped = { ...config, files: config.files ? config.files.map((f) => [`${folder}/**`, f].flat()) : [`${folder}/${SOURCES}`] };
      if (config.ignores) scoped.ignores = config.ignores.map(under);
      return scoped;
    })
    .concat({
      // typescript-eslint finds each package's root by its config file's folder; one file for all names it.
      files: [`${folder}/${SOURCES}`],
      languageOptions: { parserOptions: { tsconfigRootDir: fileURLToPath(new URL(`./${folder}`, import.meta.url)) } },
    });
}

export default [
  { ignores: ['**/node_modules/**', '**/dist/**'] },
  ...inFolder('packages/contract', contract),
  ...inFolder('packages/db', db),
  ...inFolder('packages/domain', domain),
  ...inFolder('packages/sdk', sdk),
  ...inFolder('apps/api', api),
  ...inFolder('apps/webhooks', webhooks),
  {
    // `pnpm lint` runs tooling/eslint/architecture-check.mjs right after ESLint: it finds every cycle
    // of these folders, type-only imports included, a superset of what import-x/no-cycle finds (which
    // skips them). Here the rule cost 8 of ESLint's 12 s of rule time (TIMING=1, 2026-12-02) for
    // nothing more; editors, which read each package's own config, keep it.
    files: ['**/*.{ts,tsx,mts,cts,js,mjs,cjs}'],
    rules: { 'import-x/no-cycle': 'off' },
  },
];
