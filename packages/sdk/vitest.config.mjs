import { fileURLToPath } from 'node:url';
import { platformVitestConfig } from '@platform/vitest-config';
// nest: the NestJS webhook handler is tested in a real Nest app (decorators need SWC).
// One file at a time on SQLite (as the API's suite, see there): alone 43 s and 76 s of CPU with two,
// 56 s and 65 s with one (2026-12-02); two against PostgreSQL, whose server does much of the work.
// The subpath entries import the main entry by package name (as the published files do): here that
// is the main entry's source, so the tests and the subpaths share one copy of it.
export default platformVitestConfig({
  nest: true,
  testTimeout: 60_000,
  hookTimeout: 180_000,
  maxWorkers: process.env.TEST_DATABASE_URL ? 2 : 1,
  // One API process for the live files that need no settings of their own (test/live-server.ts).
  globalSetup: ['./test/global-setup.ts'],
  alias: [{ find: /^@platform\/sdk$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }],
});
