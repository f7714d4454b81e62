import type pg from 'pg';

/**
 * The `pg` driver, loaded on first use: a start of the API or the sender on SQLite never needs it,
 * and loading it cost every such start about 120 ms of CPU (2026-12-02).
 */
export function loadPg(): typeof pg {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, above
  return require('pg') as typeof pg;
}
