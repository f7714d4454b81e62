// An idle sender process watched from outside: how often it wakes over a window after its start.
// No vitest import: the SQLite suite's global setup (idle-sender.setup.ts) runs it in vitest's main
// process from the suite's start, the idle test reads the result (idle.e2e.test.ts).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', 'dist', 'main.js');

/** Past the start: loading, migrating an empty database, connecting, the first claims. */
export const SETTLE_MS = 12_000;
/** The window counted. */
export const WINDOW_MS = 20_000;

export interface IdleWindow {
  /** Voluntary context switches of the process's main thread in the window. */
  woke: number;
  /** Clock ticks of CPU in the window (printed, not asserted: see idle.e2e.test.ts). */
  ticks: number;
}

export interface IdleSender {
  pid: number;
  /** The window's counts, or why there are none (the process left early). */
  window: Promise<IdleWindow | { error: string }>;
  /** Its exit and the tail of its output, once it has left. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

function status(pid: number, field: string): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

function ticks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `node dist/main.js` with default settings (its safety-net poll included) on `databaseUrl`. */
export function watchIdleSender(databaseUrl: string): IdleSender {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true' };
  delete env.PLATFORM_SENDER_POLL_MS;
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.on('exit', (code, signal) => {
      gone = true;
      resolve({ code, signal, output });
    }),
  );
  const pid = child.pid!;
  const window = (async () => {
    await sleep(SETTLE_MS);
    if (gone) return { error: `the sender left during its start:\n${output}` };
    const before = { woke: status(pid, 'voluntary_ctxt_switches'), ticks: ticks(pid) };
    await sleep(WINDOW_MS);
    if (gone) return { error: `the sender left during the window:\n${output}` };
    return { woke: status(pid, 'voluntary_ctxt_switches') - before.woke, ticks: ticks(pid) - before.ticks };
  })();
  return { pid, window, exited };
}
