// Memory of a running Node process, measured from outside through its inspector: a full garbage
// collection first (HeapProfiler.collectGarbage), then process.memoryUsage() inside it. The heap
// after a full collection is what the process retains, the figure a leak shows in; the heap at a
// random instant mostly says when the last collection ran.
//
// The process must be started with NODE_OPTIONS=--inspect-port=127.0.0.1:0 (INSPECT_PORT_OPTION):
// SIGUSR1 then opens its inspector on a free loopback port (without it, on 9229, which another
// program on the machine may hold). The port is found as the listening socket that appeared.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { WebSocket } from 'undici';

export const INSPECT_PORT_OPTION = '--inspect-port=127.0.0.1:0';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function listeningPorts(pid) {
  const out = execFileSync('ss', ['-Hltnp'], { encoding: 'utf8' });
  return new Set(
    out
      .split('\n')
      .filter((line) => line.includes(`pid=${pid},`))
      .map((line) => Number(/127\.0\.0\.1:(\d+)/.exec(line)?.[1]))
      .filter(Boolean),
  );
}

async function debuggerUrl(port) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  return list[0].webSocketDebuggerUrl;
}

/**
 * The resident set split as the kernel counts it (/proc/<pid>/status): rssAnon (the heaps: V8's,
 * malloc's, SQLite's page cache) and rssFile (mapped files: node's binary, shared libraries, the
 * SQLite database file's shared-memory index). Empty where /proc is missing.
 */
function residentSplit(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return {};
  }
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile') + kb('RssShmem') };
}

/** Opens the inspector of `pid` (once); returns `memory()`, the process's memory after a full GC. */
export async function inspectProcess(pid) {
  const before = listeningPorts(pid);
  process.kill(pid, 'SIGUSR1');
  let port;
  for (let i = 0; i < 100 && port === undefined; i++) {
    await sleep(50);
    port = [...listeningPorts(pid)].find((p) => !before.has(p));
  }
  if (port === undefined) throw new Error(`process ${pid}: no inspector port after SIGUSR1 (started without ${INSPECT_PORT_OPTION}?)`);
  const url = await debuggerUrl(port);
  return {
    /**
     * rss, heapTotal, heapUsed, external, arrayBuffers, rssAnon, rssFile in bytes, after a full
     * collection. With `settleMs`, a second collection and the reading come that long after the
     * first: the time the allocator takes to give what the collection freed back to the system
     * (jemalloc as deployed: 1 s; right after a collection its resident set still held 20-60 MB
     * freed, bench/load 2026-11-27).
     */
    async memory({ settleMs = 0 } = {}) {
      // A session per measurement: nothing stays attached to the process while it serves load.
      const ws = new WebSocket(url);
      await new Promise((resolve, reject) => {
        ws.onopen = resolve;
        ws.onerror = reject;
      });
      let next = 0;
      const pending = new Map();
      ws.onmessage = (event) => {
        const message = JSON.parse(event.data);
        pending.get(message.id)?.(message);
      };
      const send = (method, params = {}) =>
        new Promise((resolve, reject) => {
          const id = ++next;
          pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
          ws.send(JSON.stringify({ id, method, params }));
        });
      try {
        await send('HeapProfiler.collectGarbage');
        if (settleMs > 0) {
          await sleep(settleMs);
          await send('HeapProfiler.collectGarbage');
        }
        const { result } = await send('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
        return { ...JSON.parse(result.value), ...residentSplit(pid) };
      } finally {
        ws.close();
      }
    },
  };
}
