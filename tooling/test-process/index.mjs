// The built programs of this repository run as their start command runs them, for the tests and the
// benchmarks: a process of its own (its memory and event loop are its own), its output captured, a
// line waited for, its resident memory read from /proc, stopped with SIGTERM, and ended with the
// process that started it even when that one is killed (with-parent.cjs).
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const API_MAIN = join(REPO_ROOT, 'apps/api/dist/main.js');
export const SENDER_MAIN = join(REPO_ROOT, 'apps/webhooks/dist/main.js');

/**
 * Node options that make a process end with its parent (with-parent.cjs), for one whose stdin is a
 * pipe from the parent (`stdio: ['pipe', ...]`): startProgram and forkWithParent use them.
 */
export const WITH_PARENT = ['--require', join(dirname(fileURLToPath(import.meta.url)), 'with-parent.cjs')];

/**
 * `fork(module, args)` for a helper process of a benchmark: its stdout and stderr this process's
 * (or `stdout: 'ignore'`), an IPC channel, and ended with this process (WITH_PARENT, stdin a pipe).
 */
export function forkWithParent(module, args = [], { env, stdout = 'inherit' } = {}) {
  return fork(module, args, {
    ...(env ? { env } : {}),
    execArgv: [...process.execArgv, ...WITH_PARENT],
    stdio: ['pipe', stdout, 'inherit', 'ipc'],
  });
}

/**
 * Where the manual clock of a test deployment starts (PLATFORM_CLOCK_START): a fixed instant, so no
 * expectation about versions, expiries or dates depends on the day the tests run. On this instant
 * v20260901 is the latest stable version, v20241201 the oldest supported one, v20261201 unreleased.
 */
export const TEST_CLOCK_START = '2026-11-22T12:00:00Z';

/** What every API started here shares: loopback on a free port, no demo store, no sender, warnings only. */
const API_DEFAULTS = { HOST: '127.0.0.1', PORT: '0', PLATFORM_SEED_DEMO: 'false', PLATFORM_SENDER: 'off', LOG_LEVEL: 'warn' };
/** The line the API prints once it listens, its origin captured. */
export const API_BASE_URL = /Base URL:\s+(http:\/\/127\.0\.0\.1:\d+)\//;

/**
 * `node ...nodeArgs main`. The environment is PATH and `env` only (a variable set to undefined is left
 * out), so no setting of the caller's shell leaks in. stdout and stderr are captured, or go to this
 * process's own where `inherit` names them.
 */
export function startProgram(main, { env = {}, nodeArgs = [], inherit = [] } = {}) {
  const child = spawn(process.execPath, [...WITH_PARENT, ...nodeArgs, main], {
    env: Object.fromEntries(Object.entries({ PATH: process.env.PATH ?? '', ...env }).filter(([, value]) => value !== undefined)),
    // stdin: a pipe never written to, closed when this process ends (WITH_PARENT)
    stdio: ['pipe', inherit.includes('stdout') ? 'inherit' : 'pipe', inherit.includes('stderr') ? 'inherit' : 'pipe'],
  });
  const text = { stdout: '', stderr: '', output: '' };
  const checks = new Set();
  for (const stream of ['stdout', 'stderr']) {
    child[stream]?.on('data', (chunk) => {
      const s = chunk.toString('utf8');
      text[stream] += s;
      text.output += s;
      for (const check of checks) check();
    });
  }
  // 'close', not 'exit': by then everything the process wrote has been read.
  const exited = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const pid = child.pid;
  return {
    child,
    pid,
    exited,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    output: () => text.output,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = typeof pattern === 'string' ? (text.output.includes(pattern) ? [pattern] : null) : pattern.exec(text.output);
          if (!found) return;
          checks.delete(check);
          resolve(found);
        };
        checks.add(check);
        check();
        const gone = (reason) => {
          if (checks.delete(check)) reject(new Error(`${main} ${reason} before printing ${pattern}:\n${text.output}`));
        };
        exited.then(
          ({ code, signal }) => gone(`exited (${code ?? signal})`),
          (error) => gone(`could not start (${error.message})`),
        );
      });
    },
    /** CPU time the process has used, user + system, in ms (10 ms steps: Linux counts 100 ticks a second). */
    cpuMs() {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may hold spaces: utime and stime
      // are the 14th and 15th fields of the line.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    rss() {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return Number(kb) * 1024;
    },
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The built API (apps/api/dist/main.js) with API_DEFAULTS under `env`, once it prints its base URL. */
export async function startApi(env = {}, options = {}) {
  const program = startProgram(API_MAIN, { ...options, env: { ...API_DEFAULTS, ...env } });
  const [, origin] = await program.waitFor(API_BASE_URL);
  return { ...program, origin, port: Number(new URL(origin).port) };
}
