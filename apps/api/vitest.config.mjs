import { platformVitestConfig } from '@platform/vitest-config';

export default platformVitestConfig({
  nest: true,
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Each e2e file boots its own server and database; two at a time suits a 2-core machine.
  maxWorkers: 2,
  // The files of a worker share loaded modules (the whole app, compiled once by SWC) instead of
  // loading them again per file: 230 s -> 58 s for this suite here. Each file still builds its own
  // platform on its own database, so no state crosses files but what modules keep (none of ours does).
  isolate: false,
  setupFiles: ['./test/setup.ts'],
});
