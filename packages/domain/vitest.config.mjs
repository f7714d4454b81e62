import { platformVitestConfig } from '@platform/vitest-config';
// Pure code: the files of a worker share loaded modules rather than loading them again per file.
export default platformVitestConfig({ isolate: false });
