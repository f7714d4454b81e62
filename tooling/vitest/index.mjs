// Shared vitest config. `nest: true` compiles tests with SWC so Nest decorators and
// emitDecoratorMetadata work (esbuild, vitest's default, drops decorator metadata).
import { defineConfig } from 'vitest/config';
import swc from 'unplugin-swc';
import { fileURLToPath } from 'node:url';

const fastCheckSeed = fileURLToPath(new URL('./fast-check-seed.mjs', import.meta.url));

export function platformVitestConfig({ nest = false, ...test } = {}) {
  return defineConfig({
    plugins: nest
      ? [
          swc.vite({
            module: { type: 'es6' },
            jsc: {
              target: 'es2022',
              parser: { syntax: 'typescript', decorators: true },
              transform: { legacyDecorator: true, decoratorMetadata: true },
            },
          }),
        ]
      : [],
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      exclude: ['**/node_modules/**', '**/dist/**'],
      // A bound on a hang, not a measure of speed: vitest's 5 s default timed a property test out
      // (7 s of its 100 runs) beside the build on a loaded 2-core machine (2026-11-26).
      testTimeout: 30_000,
      // The files of a worker share loaded modules instead of loading them again per file (every
      // file still builds its own servers and databases; no module of ours keeps state a file could
      // see). Loading is most of a small file's cost on 2 cores: alone, db 27 -> 13 s, contract
      // 7 -> 3 s, the sender 123 -> 98 s, the SDK 63 -> 51 s (2026-11-26, AMD EPYC).
      isolate: false,
      ...test,
      setupFiles: [fastCheckSeed, ...(test.setupFiles ?? [])],
    },
  });
}
