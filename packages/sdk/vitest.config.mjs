import { fileURLToPath } from 'node:url';
import { platformVitestConfig } from '@platform/vitest-config';
// nest: the NestJS webhook handler is tested in a real Nest app (decorators need SWC).
// Two files at a time: most of a live file's time is a spawned API or npm waiting, not this process.
// The subpath entries import the main entry by package name (as the published files do): here that
// is the main entry's source, so the tests and the subpaths share one copy of it.
export default platformVitestConfig({
  nest: true,
  testTimeout: 60_000,
  hookTimeout: 180_000,
  maxWorkers: 2,
  // One API process for the live files that need no settings of their own (test/live-server.ts).
  globalSetup: ['./test/global-setup.ts'],
  alias: [{ find: /^@platform\/sdk$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }],
});
