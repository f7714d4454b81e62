import { describe, expect, it } from 'vitest';
import {
  deliveries,
  fileDatabase,
  meter,
  receiver,
  spawnSender,
  storeAndApp,
  subscription,
  waitFor,
  type Meter,
  type Receiver,
} from './helpers';

// decisions §11.7 and the service issue: the per-host limit holds across ALL sender processes
// together, measured at real receivers, with real `node dist/main.js` processes on one database
// (SQLite here, PostgreSQL under test:pg). Concurrency is counted at the receivers: from the request
// read to the response's close (answered, or the connection dropped by a killed sender).

const database = fileDatabase();

/** `count` receivers on ports of 127.0.0.1 (one host name), answering 200 after `delayMs`, all counted by one meter. */
async function receiversOnOneHost(count: number, delayMs: number, m: Meter, seen: Map<string, number>): Promise<Receiver[]> {
  const out: Receiver[] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      await receiver((req, res) => {
        m.enter(req, res);
        const id = String(req.headers['x-platform-webhook-id']);
        seen.set(id, (seen.get(id) ?? 0) + 1);
        setTimeout(() => res.writeHead(200).end(), delayMs);
      }),
    );
  }
  return out;
}

describe('several sender processes (decisions §11.7)', () => {
  it('two senders with PLATFORM_SENDER_PER_HOST=4 never have more than 4 requests open at one host, whatever the port', async () => {
    const m = meter();
    const seen = new Map<string, number>();
    const receivers = await receiversOnOneHost(4, 15, m, seen);
    const f = await storeAndApp(database.db);
    const ids: string[] = [];
    for (const [i, r] of [...receivers, ...receivers].entries())
      ids.push(...(await deliveries(database.db, f, await subscription(database.db, f, `${r.url}/s${i}`), 100)));
    const env = { DATABASE_URL: database.url, PLATFORM_SENDER_PER_HOST: '4' };
    const senders = [spawnSender(env), spawnSender(env)];
    await waitFor(() => seen.size === ids.length, 'every delivery', 120_000, 50);
    for (const s of senders) s.child.kill('SIGTERM');
    for (const s of senders) expect((await s.exited).code, s.output()).toBe(0);
    console.log(`two senders, ${ids.length} deliveries on 4 ports of one host: at most ${m.max} open at once`);
    expect(m.max).toBeLessThanOrEqual(4);
    expect(m.max).toBeGreaterThanOrEqual(2); // they did work side by side
    expect(m.overlaps).toBe(0);
    for (const r of receivers) await r.close();
  });

  it('kill -9 of one of two senders with 5,000 deliveries due: every one delivered, none in flight twice at once, the limit held', async () => {
    const m = meter();
    const seen = new Map<string, number>();
    const receivers = await receiversOnOneHost(2, 2, m, seen);
    const f = await storeAndApp(database.db);
    const ids: string[] = [];
    const subs: bigint[] = [];
    for (const [i, r] of [...receivers, ...receivers].entries()) {
      const sub = await subscription(database.db, f, `${r.url}/k${i}`);
      subs.push(sub.id);
      ids.push(...(await deliveries(database.db, f, sub, 1250)));
    }
    const delivered = () => database.db.prisma.webhookDelivery.count({ where: { subscriptionId: { in: subs }, status: 'delivered' } });
    // A short lease, so the killed sender's claims are taken over within seconds.
    const env = { DATABASE_URL: database.url, PLATFORM_SENDER_PER_HOST: '4', PLATFORM_SENDER_LEASE_MS: '6000' };
    const doomed = spawnSender(env);
    const survivor = spawnSender(env);
    await waitFor(() => seen.size >= 1000 || doomed.child.exitCode !== null, 'a share of the work', 120_000, 5);
    expect(doomed.child.exitCode, doomed.output()).toBeNull();
    doomed.child.kill('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    const atKill = seen.size;
    await waitFor(async () => (await delivered()) === ids.length, 'every delivery recorded', 300_000, 200);
    survivor.child.kill('SIGTERM');
    expect((await survivor.exited).code, survivor.output()).toBe(0);
    const missing = ids.filter((id) => !seen.has(id));
    const duplicates = [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
    console.log(
      `kill -9 at ${atKill} of ${ids.length}: ${duplicates} duplicate(s) (at least once), ${missing.length} lost, at most ${m.max} open at once, ${m.overlaps} overlaps`,
    );
    expect(atKill).toBeLessThan(ids.length);
    expect(missing).toEqual([]);
    expect(m.overlaps).toBe(0);
    expect(m.max).toBeLessThanOrEqual(4);
    expect(await database.db.prisma.webhookDelivery.count({ where: { subscriptionId: { in: subs }, leaseOwner: { not: null } } })).toBe(0);
    for (const r of receivers) await r.close();
  }, 600_000);
});
