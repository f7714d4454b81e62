import { platformVitestConfig } from '@platform/vitest-config';
// nest: the NestJS webhook handler is tested in a real Nest app (decorators need SWC).
export default platformVitestConfig({ nest: true, testTimeout: 60_000, hookTimeout: 180_000 });
