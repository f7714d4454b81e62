// A webhook receiver in a process of its own (receiver-process.mjs), driven over IPC: how
// many distinct webhook ids it has received, and when each of a list of ids first arrived.
import { join } from 'node:path';
import { root } from './harness.mjs';
import { forkWithParent } from '@platform/test-process';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `secret`: the app secret to check each signature with (badSignatures counts the wrong ones). */
export async function startReceiver({ secret } = {}) {
  const child = forkWithParent(join(root, 'bench/lib/receiver-process.mjs'), [], {
    env: { ...process.env, ...(secret ? { RECEIVER_SECRET: secret } : {}) },
  });
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  const ask = (message, type) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m.type === type) {
          child.off('message', on);
          resolve(m);
        }
      };
      child.on('message', on);
      child.send(message);
    });
  const count = () => ask({ type: 'count' }, 'count');
  return {
    url: `http://127.0.0.1:${port}`,
    count,
    /** Resolves true once `n` distinct ids arrived, false after `timeoutMs`. */
    waitFor: async (n, timeoutMs = Infinity) => {
      const deadline = performance.now() + timeoutMs;
      while ((await count()).count < n) {
        if (performance.now() > deadline) return false;
        await sleep(10);
      }
      return true;
    },
    times: async (ids) => (await ask({ type: 'times', ids }, 'times')).times,
    close: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.send({ type: 'stop' });
      }),
  };
}
