import { platformVitestConfig } from '@platform/vitest-config';

const IDLE = ['test/idle.e2e.test.ts'];

export default platformVitestConfig({
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Against PostgreSQL two files at a time: most of these tests wait (hanging receivers, a service clock moved by
  // hours, killed processes coming back) while the others work, and each file has a database of its
  // own. Bounds in tests are generous for it (the fairness test's 1 s against the ~25 ms seen with
  // two files running). The idle sender's test (32 s, almost all of it asleep) is a project of its
  // own in the same group, so it runs from the start on a worker of its own beside the two: it counts
  // how often an idle sender wakes, which the others' load does not change (22 wakes in 20 s beside
  // them, 31 alone; its bound is 80). It ran alone after the rest until 2026-11-27: 32 s at the end
  // of the suite with nothing else running (86 s -> 63 s for the suite alone). Against PostgreSQL
  // (.ci/run's second phase: two packages' PostgreSQL suites and the cluster suite at once, load
  // average about 8) it still runs alone after the rest: the first run with it beside them there
  // measured the fairness test's other app at 1,273 ms against its 1 s bound (27-62 ms on SQLite),
  // and its process's start is CPU that phase has none of to spare.
  // On SQLite one file at a time per project since 2026-12-02 (the idle sender's project still beside
  // it): alone 74 s and 100 s of CPU with two, 69 s and 96 s with one; the whole `pnpm test` spends
  // less CPU with every suite on one worker (apps/api/vitest.config.mjs). Two on PostgreSQL.
  maxWorkers: process.env.TEST_DATABASE_URL ? 2 : 1,
  // (Each project names its files: a project's include adds to the root's.)
  include: [],
  projects: [
    {
      extends: true,
      test: { name: 'sender', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: IDLE, sequence: { groupOrder: 0 } },
    },
    { extends: true, test: { name: 'idle', include: IDLE, sequence: { groupOrder: process.env.TEST_DATABASE_URL ? 1 : 0 } } },
  ],
});
