import type pg from 'pg';

let driver: typeof pg | undefined;

/**
 * The `pg` driver, loaded on first use: a start of the API or the sender on SQLite never needs it,
 * and loading it cost every such start about 120 ms of CPU (2026-12-02). Kept once loaded: a
 * `require` from a module that an ES module imported goes through the ES loader's resolution again
 * on every call (file system look-ups), and the per-query type parsers call this for every column.
 */
export function loadPg(): typeof pg {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, above
  return (driver ??= require('pg') as typeof pg);
}
