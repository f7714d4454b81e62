// A throwaway PostgreSQL cluster for the benchmarks (as .ci/run makes one): Debian's binaries, a
// folder of its own, a loopback port, stopped at the end. BENCH_DATABASE_URL uses a server you run.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

function pgBin() {
  const versions = readdirSync('/usr/lib/postgresql', { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  if (versions.length === 0) throw new Error('PostgreSQL is not installed: apt-get install postgresql (or set BENCH_DATABASE_URL)');
  return `/usr/lib/postgresql/${versions.sort((a, b) => Number(a) - Number(b)).pop()}/bin`;
}

/** A fresh database on `BENCH_DATABASE_URL`'s server, or on a cluster started here. */
export async function startPostgres(name = 'bench') {
  let server = process.env.BENCH_DATABASE_URL;
  let stopCluster = async () => {};
  if (!server) {
    const bin = pgBin();
    const dir = mkdtempSync(join(tmpdir(), 'bench-pg-'));
    chmodSync(dir, 0o777);
    const port = 20000 + Math.floor(Math.random() * 20000);
    const as = (cmd, args) => execFileSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { stdio: 'ignore' });
    as('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres']);
    as('pg_ctl', [
      '-D',
      join(dir, 'data'),
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      'start',
    ]);
    server = `postgresql://postgres@127.0.0.1:${port}/postgres`;
    stopCluster = async () => {
      as('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const database = `${name}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    async stop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.end();
      await stopCluster();
    },
  };
}
