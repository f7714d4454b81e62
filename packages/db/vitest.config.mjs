import { platformVitestConfig } from '@platform/vitest-config';
export default platformVitestConfig();
