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
  // Each e2e file boots its own server and database; two at a time suits a 2-core machine.
  maxWorkers: 2,
  // (isolate: false, as everywhere: the whole app compiled once by SWC per worker, not per file:
  // 230 s -> 58 s for this suite when it was set here first.)
  setupFiles: ['./test/setup.ts'],
  exclude: [...configDefaults.exclude, '**/dist/**', ...(process.env.TEST_DATABASE_URL ? SAME_ON_EVERY_DATABASE : [])],
});
