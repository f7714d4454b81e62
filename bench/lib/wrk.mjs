// wrk (Debian's package) as the load generator: the least CPU per request on a 2-core machine, so the
// server under test keeps most of the machine. Installed from Debian's packages when missing.
import { execFileSync, spawnSync } from 'node:child_process';

export function ensureWrk() {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  console.log("Installing wrk from Debian's packages...");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit', env });
}

const MS = { us: 0.001, ms: 1, s: 1000 };

/** One wrk run: requests/s, p50 and p99 in ms. Refuses a run with errors or non-2xx answers. */
export function wrk(url, { connections = 50, duration = 10, threads = 2, headers = {} } = {}) {
  const args = [`-t${threads}`, `-c${connections}`, `-d${duration}s`, '--latency'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const out = execFileSync('wrk', [...args, url], { encoding: 'utf8' });
  if (/Non-2xx or 3xx responses/.test(out) || /Socket errors/.test(out)) throw new Error(`${url}: errors under load\n${out}`);
  const pct = (p) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return Number(m[1]) * MS[m[2]];
  };
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]), p50: pct(50), p99: pct(99) };
}
