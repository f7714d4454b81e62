import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, OPERATOR_TOKEN, operatorAt, until, type Answer } from '../cluster-test/cluster';
import {
  freePort,
  removeContainers,
  signedBy,
  startContainer,
  startPostgres,
  startProgram,
  startReceiver,
  startRedis,
  type Postgres,
  type Program,
} from './services';

// decisions §12.8, issue 44 section 3: "An upgrade from the previous release is rolling: migrations
// first (... never breaking the code of the previous release ...), then one replica and one sender
// at a time." The previous release (PLATFORM_PREVIOUS_DIR: a worktree built by scripts/release.sh)
// serves while this tree's `migrate` applies the new migrations, runs again after them (a rollback),
// then beside this tree's API and sender until those replace it. The previous release's programs
// run as the image runs them (deploy/entry.sh) from its tree; this tree's from its image when
// PLATFORM_IMAGE names one (.ci/run), else from the tree the same way.
const PREVIOUS = process.env['PLATFORM_PREVIOUS_DIR'] ?? '';
const PREVIOUS_REF = process.env['PLATFORM_PREVIOUS_REF'] ?? 'the previous release';
const IMAGE = process.env['PLATFORM_IMAGE'] ?? '';
const CURRENT = join(__dirname, '..', '..', '..');

const migrationsOf = (root: string) =>
  readdirSync(join(root, 'packages', 'db', 'prisma', 'postgresql', 'migrations')).filter((name) => /^\d{14}_/.test(name));

let dir: string;
let postgres: Postgres;
let redis: Program;
let env: Record<string, string>;
const running: Program[] = [];

let started = 0;
function program(root: string, command: 'api' | 'sender' | 'migrate', own: Record<string, string> = {}): Program {
  const p =
    root === CURRENT && IMAGE
      ? startContainer(IMAGE, `${command}-${++started}`, command, { ...env, ...own })
      : startProgram('sh', [join(root, 'deploy', 'entry.sh'), command], { ...env, ...own });
  running.push(p);
  return p;
}

async function api(root: string): Promise<{ origin: string; process: Program }> {
  const port = await freePort();
  const p = program(root, 'api', { PORT: String(port) });
  const origin = `http://127.0.0.1:${port}`;
  await until(async () => (await call(`${origin}/readyz`).catch(() => undefined))?.status === 200, 90_000, `${root} API ready`);
  return { origin, process: p };
}

async function sender(root: string): Promise<Program> {
  const port = await freePort();
  const p = program(root, 'sender', { PLATFORM_SENDER_METRICS_PORT: String(port) });
  await until(
    async () => (await call(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
    90_000,
    `${root} sender ready`,
  );
  return p;
}

beforeAll(async () => {
  if (!PREVIOUS || !existsSync(join(PREVIOUS, 'apps', 'api', 'dist', 'main.js'))) {
    throw new Error('PLATFORM_PREVIOUS_DIR is not a built tree of the previous release: run scripts/release.sh compat');
  }
  dir = mkdtempSync(join(tmpdir(), 'platform-upgrade-test-'));
  postgres = await startPostgres(dir);
  const redisPort = await freePort();
  redis = startRedis(redisPort);
  env = {
    DATABASE_URL: postgres.url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLATFORM_SECRET: 'upgrade-test-secret-0123456789abcdef',
    PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLATFORM_MIGRATE: 'check',
    PLATFORM_SENDER: 'off',
    PLATFORM_SEED_DEMO: 'false',
    PLATFORM_SENDER_POLL_MS: '100',
    PLATFORM_DRAIN_DELAY_MS: '300',
    PLATFORM_RATE_LIMIT_CAPACITY: '100000',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
});

afterAll(async () => {
  await removeContainers();
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
  await redis?.stop();
  postgres?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`upgrade from ${PREVIOUS_REF} to ${IMAGE || 'this tree'}`, () => {
  it('migrations applied under load leave the previous release answering and delivering; it restarts on the new schema; old and new serve side by side', async () => {
    const added = migrationsOf(CURRENT).filter((name) => !migrationsOf(PREVIOUS).includes(name));
    expect(added.length).toBeGreaterThan(0);

    const before = program(PREVIOUS, 'migrate');
    expect(await before.exited).toBe(0);
    let oldApi = await api(PREVIOUS);
    const oldSender = await sender(PREVIOUS);

    const op = operatorAt(oldApi.origin);
    expect((await op.call('/stores', { body: { store: { handle: 'roll', name: 'Roll' } } })).status).toBe(201);
    const app = await op.call('/apps', {
      body: { app: { name: 'Roll', kind: 'private', scopes: ['read_products', 'write_products', 'read_inventory'], store_handle: 'roll' } },
    });
    expect(app.status).toBe(201);
    const token = String(app.body.access_token);
    const secret = String(app.body.app.app_secret);
    const receiver = await startReceiver();
    const subscribed = await call(admin(oldApi.origin, '/webhooks.json'), {
      token,
      body: { webhook: { topic: 'inventory_items/update', address: receiver.address } },
    });
    expect(subscribed.status).toBe(201);
    const made = await op.call('/stores/roll/products', { body: { product: { title: 'Rolled', variants: [{ sku: 'R-1' }] } } });
    expect(made.status).toBe(201);
    const item = String(made.body.product.variants[0].inventory_item_id);

    // The load: a cost change (one webhook each) and a listing, in turn, against the origins given;
    // each answer kept with what it was and where it went.
    const answers: { what: string; origin: string; status: number; at: number }[] = [];
    const costs: string[] = [];
    const failures: string[] = [];
    let origins = [oldApi.origin];
    let stop = false;
    let n = 0;
    const runLoad = async () => {
      while (!stop) {
        const origin = origins[++n % origins.length]!;
        try {
          const cost = `${n}.25`;
          const put: Answer = await operatorAt(origin).call(`/stores/roll/inventory_items/${item}`, {
            method: 'PUT',
            body: { inventory_item: { cost } },
          });
          answers.push({ what: 'update', origin, status: put.status, at: Date.now() });
          if (put.status === 200) costs.push(cost);
          const list = await call(admin(origin, '/products/products.json?limit=5&fields=title'), { token });
          answers.push({ what: 'listing', origin, status: list.status, at: Date.now() });
        } catch (error) {
          failures.push(`${origin}: ${(error as Error).message}`);
        }
      }
    };
    let load = runLoad();
    const answeredSince = (t: number, origin?: string) => answers.filter((a) => a.at > t && (!origin || a.origin === origin)).length;

    // 1. This tree's migrate while the previous release serves and delivers.
    await until(() => answers.length >= 10, 60_000, 'the load answered');
    const migrate = program(CURRENT, 'migrate');
    expect(await migrate.exited).toBe(0);
    expect(migrate.output()).toContain(`Applied ${added.length} migration(s): ${added.join(', ')}`);
    const migratedAt = Date.now();
    await until(() => answeredSince(migratedAt) >= 10, 60_000, 'the previous release answered after the migration');
    // Every change made so far reaches the receiver (the previous release's sender is the only one).
    const deliveredAll = async (what: string) => {
      const made = [...costs];
      const delivered = () =>
        new Set(
          receiver.received.map((w) =>
            String((JSON.parse(w.body.toString()) as { inventory_item?: { cost?: unknown } }).inventory_item?.cost),
          ),
        );
      await until(() => made.every((c) => delivered().has(c)), 60_000, what).catch((error: Error) => {
        const missing = made.filter((c) => !delivered().has(c));
        const sample = receiver.received[0]?.body.toString().slice(0, 300);
        throw new Error(
          `${error.message}: ${missing.length} of ${made.length} missing (${missing.slice(0, 5).join(', ')}); received ${receiver.received.length}, e.g. ${sample}`,
        );
      });
    };
    await deliveredAll('every cost change delivered by the previous sender');

    // 2. The previous release's API starts again on the migrated schema (a rollback runs it so).
    stop = true;
    await load;
    expect(await oldApi.process.stop()).toBe(0);
    oldApi = await api(PREVIOUS);

    // 3. The roll: this tree's API and sender beside the previous ones, then the previous ones stopped.
    const newApi = await api(CURRENT);
    const newSender = await sender(CURRENT);
    origins = [oldApi.origin, newApi.origin];
    stop = false;
    load = runLoad();
    const rollAt = Date.now();
    await until(
      () => answeredSince(rollAt, oldApi.origin) >= 6 && answeredSince(rollAt, newApi.origin) >= 6,
      60_000,
      'both releases answered',
    );
    // Idempotency-Key across the two releases (CHANGELOG.md, 1.1.0): an answer the previous release
    // kept is replayed by this one; one this release sealed is "still running" (409) to the previous.
    const post = (origin: string, key: string) =>
      operatorAt(origin).call('/stores/roll/products', { headers: { 'idempotency-key': key }, body: { product: { title: key } } });
    const keptByOld = await post(oldApi.origin, 'kept-by-previous');
    expect(keptByOld.status).toBe(201);
    const replayedByNew = await post(newApi.origin, 'kept-by-previous');
    expect([replayedByNew.status, replayedByNew.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(replayedByNew.body.product.id).toBe(keptByOld.body.product.id);
    const sealedByNew = await post(newApi.origin, 'sealed-by-this');
    expect(sealedByNew.status).toBe(201);
    const metByOld = await post(oldApi.origin, 'sealed-by-this');
    expect([metByOld.status, metByOld.headers['retry-after']]).toEqual([409, '1']);
    const replayedAgain = await post(newApi.origin, 'sealed-by-this');
    expect([replayedAgain.status, replayedAgain.body.product.id]).toEqual([201, sealedByNew.body.product.id]);
    expect(await oldSender.stop()).toBe(0);
    origins = [newApi.origin];
    const oldStoppedAt = Date.now();
    expect(await oldApi.process.stop()).toBe(0);
    await until(() => answeredSince(oldStoppedAt) >= 6, 60_000, 'this release answered alone');
    stop = true;
    await load;
    await deliveredAll('every cost change delivered');

    expect(failures).toEqual([]);
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.what} ${a.origin} ${a.status}`)).toEqual([]);
    for (const hook of receiver.received) expect(signedBy(hook, secret)).toBe(true);
    await receiver.close();
    expect(await newSender.stop()).toBe(0);
    expect(await newApi.process.stop()).toBe(0);
  });
});
