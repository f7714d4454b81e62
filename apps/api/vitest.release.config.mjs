import { platformVitestConfig } from '@platform/vitest-config';

// Issue 44: the release tests, each run by its script, not by `pnpm test`: the image from
// `scripts/image.sh test` (PLATFORM_IMAGE), the upgrade from the previous release from
// `scripts/release.sh compat` (PLATFORM_PREVIOUS_DIR). Files one after the other, real processes.
export default platformVitestConfig({
  include: ['release-test/**/*.release.test.ts'],
  testTimeout: 300_000,
  hookTimeout: 180_000,
  fileParallelism: false,
});
