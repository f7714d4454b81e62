// The two-replica production topology of scripts/cluster.sh (docs/production.md: PostgreSQL, Redis,
// HAProxy, 2 API replicas, 2 senders) for a benchmark: started on free loopback ports with the
// benchmark's operator token and secret, stopped with SIGTERM (the script then takes everything
// down and removes its folder). `env` (PLATFORM_*, NODE_OPTIONS, LOG_LEVEL) reaches every replica
// and sender, as the script documents.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATOR, root } from './harness.mjs';

/** A base port whose 23 ports (the script's layout) nobody listens on, below the ephemeral range. */
function freeBasePort() {
  const listening = execFileSync('ss', ['-Hltn'], { encoding: 'utf8' });
  const used = new Set([...listening.matchAll(/:(\d+)\s/g)].map((m) => Number(m[1])));
  for (let tries = 0; tries < 50; tries++) {
    const base = 22000 + 100 * Math.floor(Math.random() * 100);
    if (!Array.from({ length: 23 }, (_, i) => base + i).some((p) => used.has(p))) return base;
  }
  throw new Error('no free block of ports for the cluster');
}

export async function startCluster(env = {}) {
  const child = spawn('bash', [join(root, 'scripts/cluster.sh')], {
    env: {
      ...process.env,
      CLUSTER_BASE_PORT: String(freeBasePort()),
      CLUSTER_SKIP_BUILD: '1',
      // taken down if the benchmark is killed before it stops the cluster
      CLUSTER_PARENT_PID: String(process.pid),
      PLATFORM_OPERATOR_TOKEN: OPERATOR,
      PLATFORM_SECRET: 'bench-secret-0123456789abcdef',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const up = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('Ctrl-C stops everything')) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`scripts/cluster.sh exited ${code}:\n${err}${out}`)));
  });
  child.stdout.resume();
  const dir = /Folder:\s+(\S+)/.exec(up)[1];
  const settings = Object.fromEntries(
    readFileSync(join(dir, 'cluster.env'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const apis = Number(settings.APIS);
  return {
    origin: `http://127.0.0.1:${settings.LB_PORT}`,
    databaseUrl: settings.DATABASE_URL,
    dir,
    /** The API replicas (api1, api2, ...): each node process and its own port (scripts/cluster/lib.sh). */
    apis: () =>
      Array.from({ length: apis }, (_, i) => ({
        name: `api${i + 1}`,
        pid: Number(readFileSync(join(dir, `api${i + 1}.pid`), 'utf8')),
        origin: `http://127.0.0.1:${Number(settings.BASE_PORT) + 10 + i + 1}`,
      })),
    /** The webhook senders (sender1, ...): each node process. */
    senders: () =>
      Array.from({ length: Number(settings.SENDERS) }, (_, i) => ({
        name: `sender${i + 1}`,
        pid: Number(readFileSync(join(dir, `sender${i + 1}.pid`), 'utf8')),
      })),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}
