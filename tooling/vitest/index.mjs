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
      ...test,
      setupFiles: [fastCheckSeed, ...(test.setupFiles ?? [])],
    },
  });
}
