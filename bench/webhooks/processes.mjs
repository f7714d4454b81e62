// bench/webhooks: the processes beside the benchmark (the sender, the idle baseline) and the CPU
// they use.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forkWithParent } from '@platform/test-process';

const here = dirname(fileURLToPath(import.meta.url));

/** A child process and how to stop it (SIGTERM, resolved on its exit). */
export function stoppable(child) {
  return {
    child,
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * CPU time of a process so far, in ms: the scheduler's own count for each of its threads (ns, from
 * /proc/<pid>/task/<tid>/schedstat), summed. (/proc/<pid>/stat counts 10 ms clock ticks, too coarse
 * for an idle process: it read the same idle sender at 20 to 360 ms in 20 s.)
 */
export function cpuMs(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e6;
}

/** The idle baseline: a bare process polling the same database once a second with the sender's idle query (idle-poller.mjs). */
export async function startIdlePoller(kind, url) {
  const child = forkWithParent(join(here, 'idle-poller.mjs'), [kind, url]);
  await new Promise((resolve) => child.once('message', resolve));
  return stoppable(child);
}
