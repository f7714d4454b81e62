import { platformVitestConfig } from '@platform/vitest-config';
// nest: the NestJS webhook handler is tested in a real Nest app (decorators need SWC).
// Two files at a time: most of a live file's time is a spawned API or npm waiting, not this process.
export default platformVitestConfig({ nest: true, testTimeout: 60_000, hookTimeout: 180_000, maxWorkers: 2 });
