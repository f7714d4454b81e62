import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';

/*
 * The published package carries the contract and the domain entries it uses inside its dist
 * (bundled from their sources, so tree-shaking leaves the OpenAPI generator and the rule engine
 * out); its runtime dependencies are zod and @ts-rest/core. Subpath entries import the main entry
 * by package name (`@platform/sdk`, external), in their code and in their declarations alike, so every
 * entry shares one copy of the error classes (`instanceof` holds in CJS too) and the subpaths'
 * declarations do not carry a second copy of the contract's types (1.2 MB per format until 2026-11-26).
 */
const SOURCES: Record<string, string> = {
  '@platform/contract': '../contract/src/index.ts',
  '@platform/domain/pagination': '../domain/src/pagination/index.ts',
  '@platform/domain/scopes': '../domain/src/auth/define-scopes.ts',
  '@platform/domain/signing': '../domain/src/signing/index.ts',
  '@platform/domain/versions': '../domain/src/versions/index.ts',
};

const workspaceSources = {
  name: 'workspace-sources',
  setup(build: { onResolve: (o: { filter: RegExp }, cb: (a: { path: string; importer: string }) => unknown) => void }) {
    build.onResolve({ filter: /^@platform\/(contract|domain)/ }, (args) => {
      const file = SOURCES[args.path];
      if (!file) throw new Error(`@platform/sdk may not bundle ${args.path} (only ${Object.keys(SOURCES).join(', ')})`);
      return { path: resolve(__dirname, file) };
    });
    // The OpenAPI generator is in the contract's barrel but never reached from the SDK: drop its import.
    build.onResolve({ filter: /^@ts-rest\/open-api$/ }, (args) => ({ path: args.path, external: true, sideEffects: false }));
  },
};

export const shared: Options = {
  format: ['esm', 'cjs'],
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  treeshake: true,
  splitting: false,
  dts: {
    resolve: [/^@platform\/(contract|domain)/],
    compilerOptions: {
      composite: false,
      incremental: false,
      baseUrl: '.',
      rootDir: '..',
      paths: { ...Object.fromEntries(Object.entries(SOURCES).map(([name, file]) => [name, [file]])), '@platform/sdk': ['src/index.ts'] },
    },
  },
  noExternal: [/^@platform\/(contract|domain)/],
  external: [
    '@platform/sdk',
    'zod',
    '@ts-rest/core',
    '@noble/hashes',
    'better-sqlite3',
    '@nestjs/common',
    'express',
    'fastify',
    'redis',
    'pg',
  ],
  esbuildPlugins: [workspaceSources as never],
  outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.cjs' }),
};

// The main entry here; the subpath entries in tsup.subpaths.config.ts, built after it (`build` runs
// both in turn) because their declarations are checked against this one's (see there).
export default defineConfig({ ...shared, entry: { index: 'src/index.ts' }, clean: true });
