import { platformVitestConfig } from '@platform/vitest-config';

const ALONE = ['test/idle.e2e.test.ts'];

export default platformVitestConfig({
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Two files at a time: most of these tests wait (hanging receivers, a service clock moved by
  // hours, killed processes coming back) while the others work, and each file has a database of its
  // own. Bounds in tests are generous for it (the fairness test's 1 s against the ~25 ms seen with
  // two files running). The idle sender's CPU is measured alone, after the rest (groupOrder 1).
  maxWorkers: 2,
  // (Each project names its files: a project's include adds to the root's.)
  include: [],
  projects: [
    {
      extends: true,
      test: { name: 'sender', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } },
    },
    { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
  ],
});
