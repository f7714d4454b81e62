import { rmSync } from 'node:fs';
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
  '@platform/domain/limits': '../domain/src/limits.ts',
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

/** Where tsconfig.dts.json emits a source's declarations. */
const declared = (source: string) =>
  `.types/${source
    .replace(/^\.\.\//, '')
    .replace(/^(src\/)/, 'sdk/$1')
    .replace(/\.ts$/, '.d.ts')}`;

const shared: Options = {
  format: ['esm', 'cjs'],
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  treeshake: true,
  splitting: false,
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

/*
 * Declarations: rolled up from what TypeScript 7 emitted (`tsc7 -p tsconfig.dts.json`, run by
 * `build` first), not generated here by TypeScript 5.9 from the sources, which type-checked the
 * contract once more (main entry 11 s, subpaths 4.7 s on 2026-11-27; now about 3 s in all). The contract's
 * and the domain's declarations are inlined (`resolve`); `@platform/sdk` stays external.
 */
const dts = (entries: Record<string, string>): Options['dts'] => ({
  entry: Object.fromEntries(Object.entries(entries).map(([name, source]) => [name, declared(source)])),
  resolve: [/^@platform\/(contract|domain)/],
  compilerOptions: {
    composite: false,
    incremental: false,
    baseUrl: '.',
    rootDir: '.',
    paths: Object.fromEntries(Object.entries(SOURCES).map(([name, file]) => [name, [declared(file)]])),
  },
});

const MAIN = { index: 'src/index.ts' };
const SUBPATHS = {
  sqlite: 'src/sqlite.ts',
  'token-store-redis': 'src/token-store-redis.ts',
  'token-store-pg': 'src/token-store-pg.ts',
  express: 'src/express.ts',
  fastify: 'src/fastify.ts',
  nestjs: 'src/nestjs.ts',
};

// The two builds below run at once, so neither cleans dist (one could remove what the other wrote).
rmSync(resolve(__dirname, 'dist'), { recursive: true, force: true });

export default defineConfig([
  { ...shared, entry: MAIN, dts: dts(MAIN) },
  // The subpath entries (Node only: token stores, framework receivers) import the main entry by
  // package name, external in code and declarations alike.
  { ...shared, entry: SUBPATHS, dts: dts(SUBPATHS), platform: 'node', shims: true },
]);
