import { platformVitestConfig } from '@platform/vitest-config';

// Issue 15: the end-to-end suite on the cluster of scripts/cluster.sh (PostgreSQL, Redis, HAProxy,
// two API replicas, two senders). Needs the built programs; files run one after the other, each
// with its own cluster on its own ports.
export default platformVitestConfig({
  include: ['cluster-test/**/*.test.ts'],
  testTimeout: 120_000,
  hookTimeout: 180_000,
  fileParallelism: false,
});
