import { platformVitestConfig } from '@platform/vitest-config';

export default platformVitestConfig({
  nest: true,
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Each e2e file boots its own server and database; two at a time suits a 2-core machine.
  maxWorkers: 2,
  setupFiles: ['./test/setup.ts'],
});
