// The idle baseline of bench/webhooks: a bare process doing what an idle sender must, no more. It
// opens the same database with the bare driver (better-sqlite3, or `pg` with a prepared statement)
// and every second (the sender's safety-net poll, PLATFORM_SENDER_POLL_MS) asks for the first free
// due delivery with the sender's own query. Its CPU over the same 20 s, measured at the same time
// as the idle sender's, is what "no measurable CPU" is compared with on this machine: here a
// process that only wakes once a second already costs tens of milliseconds in 20 s.
import Database from 'better-sqlite3';
import pg from 'pg';

const [kind, url] = process.argv.slice(2);
const POLL_MS = 1000;
const LEASE_MS = 60_000;
const FIRST_FREE_DUE = `SELECT next_attempt_at AS at FROM webhook_deliveries
  WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < $1 OR lease_until > $2) ORDER BY next_attempt_at LIMIT 1`;

let poll;
if (kind === 'sqlite') {
  const db = new Database(new URL(url).pathname);
  const statement = db.prepare(FIRST_FREE_DUE.replace(/\$\d/g, '?'));
  // The sender stores SQLite times as ISO text.
  poll = async (now, later) => statement.get(now.toISOString(), later.toISOString());
} else {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  poll = (now, later) => client.query({ name: 'first-free-due', text: FIRST_FREE_DUE, values: [now, later] });
}
setInterval(() => {
  const now = new Date();
  void poll(now, new Date(now.getTime() + 2 * LEASE_MS));
}, POLL_MS);
process.send?.({ ready: true });
