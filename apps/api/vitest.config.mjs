import { configDefaults } from 'vitest/config';
import { platformVitestConfig } from '@platform/vitest-config';

// Left out of the PostgreSQL run (TEST_DATABASE_URL, `.ci/run`): files whose outcome cannot depend
// on the database, so the second run would repeat the first. Each still runs in `pnpm test`.
const SAME_ON_EVERY_DATABASE = [
  'test/start-output.e2e.test.ts', // starts the built API on SQLite files it names itself
  'test/tracing.e2e.test.ts', // the OpenTelemetry export of request spans
  'test/anonymous-bodies.e2e.test.ts', // bodies refused before a route reads them
  'test/slow-clients.e2e.test.ts', // stalled bodies and headers cut by the HTTP server
  'test/docs.browser.e2e.test.ts', // the reference page rendering the document in Chromium
  'test/alert-rules.test.ts', // promtool on deploy/prometheus
];

export default platformVitestConfig({
  nest: true,
  // Bounds on a hang: a test that starts API processes took 41 s in .ci/run's PostgreSQL run on
  // 2 cores (2026-11-26), beside the sender's suite and the cluster suite.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Each e2e file boots its own server and database. One file at a time on SQLite: `pnpm test` runs
  // two turbo tasks at once anyway, and a second worker costs a second compile of the app, a second
  // Chromium and the two cores' shared memory bandwidth (measured 2026-12-02, the suite alone: 2
  // workers 126 s and 227 s of CPU, 1 worker 164 s and 194 s; a fresh clone's whole `pnpm test`
  // with the SDK's and the sender's suites on one worker too: 724 -> 524-543 s of CPU, 6 min 18 s
  // -> 5 min 14 s). Two against PostgreSQL (.ci/run), where much of a file's time is the server's.
  maxWorkers: process.env.TEST_DATABASE_URL ? 2 : 1,
  // (isolate: false, as everywhere: the whole app compiled once by SWC per worker, not per file:
  // 230 s -> 58 s for this suite when it was set here first.)
  setupFiles: ['./test/setup.ts'],
  exclude: [...configDefaults.exclude, '**/dist/**', ...(process.env.TEST_DATABASE_URL ? SAME_ON_EVERY_DATABASE : [])],
});
