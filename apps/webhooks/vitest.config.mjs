import { platformVitestConfig } from '@platform/vitest-config';

export default platformVitestConfig({
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Tests spawn sender processes and receivers; one file at a time suits a 2-core machine.
  maxWorkers: 1,
  fileParallelism: false,
});
