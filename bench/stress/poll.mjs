// The /healthz poller of bench/stress, in a process of its own so that the load generator's work
// (building megabyte bodies) never delays a poll: one keep-alive connection, a GET every ~10 ms (at
// once when the previous one took longer), each answer timed from send to the last byte.
// Messages: {start} begins a series, {stop} answers with the series' latencies in ms, {exit} ends.
import http from 'node:http';

const origin = new URL(process.env.POLL_ORIGIN);
const INTERVAL_MS = Number(process.env.POLL_INTERVAL_MS ?? 10);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

let series = null;
let stopped = false;

function poll() {
  return new Promise((resolve) => {
    const sent = performance.now();
    const req = http.get({ host: origin.hostname, port: origin.port, path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - sent, ok: res.statusCode === 200 }));
    });
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ ms: performance.now() - sent, ok: false }));
  });
}

async function loop() {
  while (!stopped) {
    const started = performance.now();
    const { ms, ok } = await poll();
    if (series) {
      series.latencies.push(ms);
      if (!ok) series.failures++;
    }
    const wait = INTERVAL_MS - (performance.now() - started);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

process.on('message', (m) => {
  if (m.type === 'start') series = { latencies: [], failures: 0 };
  else if (m.type === 'stop') {
    process.send({ type: 'series', latencies: series?.latencies ?? [], failures: series?.failures ?? 0 });
    series = null;
  } else if (m.type === 'exit') {
    stopped = true;
    agent.destroy();
    process.disconnect();
  }
});

process.send({ type: 'ready' });
void loop();
