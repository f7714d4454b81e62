import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { sqliteFilePath } from './provider';
import { SQLITE_BUSY_TIMEOUT_MS } from './sqlite';

/**
 * SQLite WAL checkpoints off the event loop, for a process that commits often and must not stall
 * (the webhook sender). By default the connection that commits past 1,000 WAL pages copies them back
 * into the database file itself, fsync included, inside its COMMIT: on better-sqlite3 that blocks the
 * process for 5-8 ms every fifty commits or so, and in the sender every attempt in flight waits
 * (bench/webhooks: about a tenth of the sender's SQLite time, and its worst latencies). The process
 * turns its connection's automatic checkpoints off (`PRAGMA wal_autocheckpoint = 0`) and calls
 * `nudge()` after its commits; a worker thread with a connection of its own then runs a PASSIVE
 * checkpoint (which never waits for readers or writers, and never makes them wait) `delayMs` later,
 * so the WAL stays small while the event loop never copies a page. Idle, the worker sleeps: no timer
 * runs without a nudge. Other processes' connections keep their automatic checkpoints.
 */
export interface WalCheckpointer {
  /** A commit happened: a checkpoint runs within `delayMs` (nudges meanwhile are folded into it). */
  nudge(): void;
  close(): Promise<void>;
}

// The worker's code, evaluated (no file of its own, so it runs from src in tests as from dist).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.busyMs });
let timer = null;
parentPort.on('message', (message) => {
  if (message === 'close') {
    clearTimeout(timer);
    db.close();
    parentPort.close();
    return;
  }
  if (timer !== null) return;
  timer = setTimeout(() => {
    timer = null;
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy or gone: the next nudge tries again, and any connection's automatic checkpoint still works
    }
  }, workerData.delayMs);
});
`;

/** For the SQLite database at `url` (a `file:` URL, as DATABASE_URL). */
export function startWalCheckpointer(url: string, delayMs = 50): WalCheckpointer {
  const file = sqliteFilePath(url);
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { file, delayMs, busyMs: SQLITE_BUSY_TIMEOUT_MS, driver: require.resolve('better-sqlite3') },
  });
  // A checkpoint that never ran only leaves the WAL longer: the worker never keeps the process alive.
  worker.unref();
  worker.on('error', () => undefined);
  const exited = once(worker, 'exit').catch(() => undefined);
  let last = 0;
  let closed = false;
  return {
    nudge() {
      const now = Date.now();
      if (closed || now - last < delayMs) return;
      last = now;
      worker.postMessage(1);
    },
    async close() {
      if (closed) return;
      closed = true;
      worker.postMessage('close');
      await exited;
    },
  };
}
