import { closeSync, openSync, utimes, watch, type FSWatcher } from 'node:fs';
import type pg from 'pg';
import { loadPg } from './pg-driver';
import type { Db } from './client';
import { providerOf, sqliteFilePath } from './provider';

/**
 * Waking the webhook senders when deliveries become due (docs/webhooks-sender.md, "Waking"), so a
 * committed event is sent in milliseconds instead of at the next poll:
 *
 * - PostgreSQL: the outbox write issues `NOTIFY` inside its transaction (PostgreSQL delivers it on
 *   commit only, never for a rollback, and folds repeats within one transaction); every sender
 *   `LISTEN`s on a connection of its own.
 * - SQLite: after the commit, the writer touches a file beside the database (`<file>-wake`, its
 *   modification time only); every sender on the machine watches it (inotify on Linux). A write to a
 *   file is the one signal every process using that database file can see without a server or a
 *   port, and it is sent after the commit, so a woken sender always finds the rows.
 *
 * Either signal may be lost (a listener reconnecting, a file system without change events): each
 * sender keeps a slow poll as the safety net.
 */
export const OUTBOX_CHANNEL = 'webhook_deliveries_due';

/** The file a SQLite database's writers touch and its senders watch. */
export function wakeFileOf(url: string): string {
  return `${sqliteFilePath(url)}-wake`;
}

/** Inside the writing transaction (PostgreSQL only): the senders hear it when, and if, it commits. */
export const NOTIFY_SQL = `NOTIFY ${OUTBOX_CHANNEL}`;

function touch(file: string): void {
  const now = new Date();
  // Nobody watching (no sender started yet, so no file): nothing to wake.
  utimes(file, now, now, () => undefined);
}

/**
 * Wakes the senders after a commit that made deliveries due: outside the outbox writer (a
 * redelivery), or on SQLite after the outbox's own commit. Never throws: what it wakes for is
 * committed already, and a lost wake only leaves the work to the senders' poll.
 */
export async function wakeSenders(db: Db): Promise<void> {
  if (db.provider === 'postgresql') await db.query(NOTIFY_SQL).catch(() => undefined);
  else touch(wakeFileOf(db.url));
}

export interface OutboxWatch {
  /** Resolves once the watch is in place (the first LISTEN answered, the file watched). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Calls `onWake` whenever deliveries may have become due, and once more each time the watch is
 * (re)established (what was committed meanwhile was not signalled). `onProblem` hears of a lost
 * listener connection or watch; they are re-made with a back-off up to 5 s.
 */
export function watchOutbox(url: string, onWake: () => void, onProblem: (message: string, error?: unknown) => void): OutboxWatch {
  return providerOf(url) === 'postgresql' ? listen(url, onWake, onProblem) : watchFile(wakeFileOf(url), onWake, onProblem);
}

function listen(url: string, onWake: () => void, onProblem: (message: string, error?: unknown) => void): OutboxWatch {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let backoffMs = 100;
  let failures = 0;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const connect = async (): Promise<void> => {
    if (closed) return;
    const c = new (loadPg().Client)({ connectionString: url });
    client = c;
    let dropped = false;
    const drop = (error?: unknown) => {
      if (dropped) return;
      dropped = true;
      if (client === c) client = undefined;
      c.end().catch(() => undefined);
      if (closed) return;
      if (failures++ === 0)
        onProblem('the webhook outbox listener lost its PostgreSQL connection; reconnecting (the poll covers the gap)', error);
      timer = setTimeout(() => void connect(), backoffMs);
      backoffMs = Math.min(backoffMs * 2, 5000);
    };
    c.on('error', drop);
    c.on('end', () => drop());
    c.on('notification', () => onWake());
    try {
      await c.connect();
      await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
    } catch (error) {
      drop(error);
      return;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    if (failures > 0) onProblem(`the webhook outbox listener is back after ${failures} failed attempt(s)`);
    failures = 0;
    backoffMs = 100;
    markReady();
    onWake();
  };
  void connect();
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}

function watchFile(file: string, onWake: () => void, onProblem: (message: string, error?: unknown) => void): OutboxWatch {
  let closed = false;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;

  const reopen = (delayMs: number) => {
    watcher?.close();
    watcher = undefined;
    if (!closed) timer = setTimeout(open, delayMs);
  };
  const open = () => {
    if (closed) return;
    try {
      // The database's folder is the service's own (0700); the file carries no data.
      closeSync(openSync(file, 'a', 0o600));
      watcher = watch(file, { persistent: false }, (event) => {
        onWake();
        // Deleted or replaced: the watch followed the old file; watch the new one.
        if (event === 'rename') reopen(0);
      });
      watcher.on('error', (error) => {
        onProblem('the webhook wake file watch failed; watching again (the poll covers the gap)', error);
        reopen(1000);
      });
      failures = 0;
      onWake();
    } catch (error) {
      if (failures++ === 0) onProblem(`cannot watch ${file}; retrying (the poll covers the gap)`, error);
      reopen(1000);
    }
  };
  open();
  return {
    ready: Promise.resolve(),
    async close() {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
