import type { Sql } from './sql';

/**
 * decisions §10: the service clock as the sender sees it. `system`: real time. `manual` (tests):
 * the instant stored in the `platform_clock` row, re-read by `sync()` before every claim, so a move
 * made through the API (POST /platform/v1/clock) is seen by every sender. Lease times are real time
 * whatever the mode: they are about processes, not about the service.
 */
export interface SenderClock {
  now(): Date;
  sync(): Promise<void>;
}

export function createSenderClock(sql: Sql, mode: 'system' | 'manual', start?: Date): SenderClock {
  if (mode === 'system') return { now: () => new Date(), sync: async () => undefined };
  let nowMs = start?.getTime() ?? Date.now();
  const read = async () => (await sql.query<{ now_ms: bigint }>('SELECT now_ms FROM platform_clock WHERE id = 1'))[0];
  return {
    now: () => new Date(nowMs),
    async sync() {
      let row = await read();
      if (!row) {
        // The first process to read the manual clock starts it at PLATFORM_CLOCK_START, or at its
        // real time (as the API does).
        await sql.query('INSERT INTO platform_clock (id, now_ms, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING', [
          BigInt(start?.getTime() ?? Date.now()),
          new Date(),
        ]);
        row = await read();
      }
      if (row) nowMs = Number(row.now_ms);
    },
  };
}
