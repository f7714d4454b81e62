import { platformVitestConfig } from '@platform/vitest-config';

const IDLE = ['test/idle.e2e.test.ts'];

export default platformVitestConfig({
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Against PostgreSQL two files at a time: most of these tests wait (hanging receivers, a service clock moved by
  // hours, killed processes coming back) while the others work, and each file has a database of its
  // own. Bounds in tests are generous for it (the fairness test's 1 s against the ~25 ms seen with
  // two files running). On SQLite one file at a time since 2026-12-02: alone 74 s and 100 s of CPU
  // with two, 69 s and 96 s with one; the whole `pnpm test` spends less CPU with every suite on one
  // worker (apps/api/vitest.config.mjs).
  // The idle sender's test (32 s, almost all of it waiting) is a project of its own that runs after
  // the rest. On SQLite its sender starts with the suite, from the project's global setup
  // (test/idle-sender.setup.ts), and is watched while the other files run: how often an idle sender
  // wakes does not change with the others' load (22 wakes in 20 s beside them, 31 alone; its bound is
  // 80), and the suite does not wait 32 s for it (one file at a time, it waited them in full: 127 s
  // for the suite in a fresh clone's `pnpm test`). Against PostgreSQL (.ci/run's second phase: two
  // packages' PostgreSQL suites and the cluster suite at once, load average about 8) it starts and is
  // watched in its own file after the rest: the first run with it beside them there measured the
  // fairness test's other app at 1,273 ms against its 1 s bound (27-62 ms on SQLite), and its
  // process's start is CPU that phase has none of to spare.
  maxWorkers: process.env.TEST_DATABASE_URL ? 2 : 1,
  // (Each project names its files: a project's include adds to the root's.)
  include: [],
  projects: [
    {
      extends: true,
      test: { name: 'sender', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: IDLE, sequence: { groupOrder: 0 } },
    },
    {
      extends: true,
      test: { name: 'idle', include: IDLE, globalSetup: ['test/idle-sender.setup.ts'], sequence: { groupOrder: 1 } },
    },
  ],
});
