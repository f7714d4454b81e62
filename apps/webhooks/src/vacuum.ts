import { openPgSession } from '@platform/db';

/**
 * PostgreSQL: a VACUUM of webhook_deliveries after every `every` deliveries this sender records
 * (PLATFORM_SENDER_VACUUM_EVERY; docs/webhooks-sender.md, "Vacuum").
 *
 * Every claim and every record writes a new version of the delivery's row, so each delivery sent
 * leaves two dead entries in the queue's partial indexes (pending rows only) at the head of its
 * subscription's range: exactly where every claim starts reading. Until a VACUUM removes them, each
 * claim steps over all of them (measured: after 60,000 deliveries the claims' first statement read
 * 1,200 index pages, and commit-to-receipt at 500 events/s went from a p50 of 4 ms to 13-16 ms).
 * Autovacuum comes at most once a minute (autovacuum_naptime), by which time a busy sender has left
 * hundreds of thousands. The VACUUM runs on a connection of its own, beside the claims and records
 * (it takes no lock they wait for); SKIP_LOCKED skips it while another VACUUM of the table (another
 * sender's, autovacuum's) runs; a role that does not own the table gets a warning from the server
 * and nothing is done (autovacuum still runs).
 */
export interface DeliveriesVacuum {
  /** `count` more deliveries were recorded */
  recorded(count: number): void;
  close(): Promise<void>;
}

/**
 * The ledger of live claims (webhook_lease_counts, migration 20261127234500_lease_counts) goes with
 * it: each claim folds what was appended since the last one, leaving as many dead rows.
 */
export const VACUUM_STATEMENT = 'VACUUM (SKIP_LOCKED, INDEX_CLEANUP ON) webhook_deliveries, webhook_lease_counts';

export function createDeliveriesVacuum(url: string, every: number, warn: (error: unknown) => void): DeliveriesVacuum {
  if (every <= 0) return { recorded: () => undefined, close: async () => undefined };
  const session = openPgSession(url);
  let since = 0;
  let running: Promise<void> | undefined;
  let closing = false;
  const start = () => {
    since = 0;
    running = session
      .query(VACUUM_STATEMENT)
      .then(
        () => undefined,
        (error: unknown) => {
          if (!closing) warn(error);
        },
      )
      .finally(() => {
        running = undefined;
        // `every` more were recorded while it ran: the next follows at once, not at the next
        // record (the last deliveries of a burst would otherwise stay unvacuumed until more come).
        if (since >= every && !closing) start();
      });
  };
  return {
    recorded(count) {
      since += count;
      if (since < every || running || closing) return;
      start();
    },
    async close() {
      closing = true;
      // The server finishes a VACUUM under way by itself; stopping does not wait for it.
      await session.close();
    },
  };
}
