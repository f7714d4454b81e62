// The SQLite suite's global setup: an idle sender from the suite's start, watched while the other
// files run (one at a time, on the other core); idle.e2e.test.ts runs after them and reads what was
// counted, so its 32 s of waiting overlap the suite instead of adding to it (vitest.config.mjs).
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { watchIdleSender } from './idle-sender';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The idle sender started by the global setup: its pid and the file its counts are written to. */
    idleSender: { pid: number; file: string } | null;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('idleSender', null);
    return async () => {};
  }
  const dir = mkdtempSync(join(tmpdir(), 'platform-idle-sender-'));
  const file = join(dir, 'counts.json');
  const idle = watchIdleSender(`file:${join(dir, 'idle.db')}`);
  const written: Record<string, unknown> = {};
  // Written beside and renamed over: the test polls the file, and a read during a plain write saw it
  // empty ("Unexpected end of JSON input", 2026-12-04). A rename replaces it whole.
  const write = (part: Record<string, unknown>) => {
    writeFileSync(`${file}.next`, JSON.stringify(Object.assign(written, part)));
    renameSync(`${file}.next`, file);
  };
  void idle.window.then((window) => write({ window }));
  void idle.exited.then((exit) => write({ exit }));
  project.provide('idleSender', { pid: idle.pid, file });
  return async () => {
    // Left running only when the idle test did not run (a filter): stop it.
    try {
      process.kill(idle.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    await idle.exited;
    rmSync(dir, { recursive: true, force: true });
  };
}
