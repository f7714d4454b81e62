import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, OPERATOR_TOKEN, operatorAt, until } from '../cluster-test/cluster';
import {
  containerName,
  freePort,
  podman,
  removeContainers,
  signedBy,
  startContainer,
  startPostgres,
  startReceiver,
  startRedis,
  type Postgres,
  type Program,
} from './services';

// Issue 44, section 1: the image, run as production runs it (`scripts/image.sh test` names it in
// PLATFORM_IMAGE): `migrate` once, two API containers and one sender against a throwaway PostgreSQL
// and Redis, all on the host's network; /readyz, an Admin API call, a webhook delivered and verified,
// and a SIGTERM drain that exits 0.
const IMAGE = process.env['PLATFORM_IMAGE'] ?? '';
const ROOT = join(__dirname, '..', '..', '..');

let dir: string;
let postgres: Postgres;
let redis: Program;
const containers: Program[] = [];
let env: Record<string, string>;

function container(name: string, command: string, own: Record<string, string> = {}): Program {
  const program = startContainer(IMAGE, name, command, { ...env, ...own });
  containers.push(program);
  return program;
}

beforeAll(async () => {
  if (!IMAGE) throw new Error('PLATFORM_IMAGE is not set: run scripts/image.sh test');
  dir = mkdtempSync(join(tmpdir(), 'platform-image-test-'));
  postgres = await startPostgres(dir);
  const redisPort = await freePort();
  redis = startRedis(redisPort);
  env = {
    DATABASE_URL: postgres.url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLATFORM_SECRET: 'image-test-secret-0123456789abcdef',
    PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLATFORM_SENDER_POLL_MS: '100',
    PLATFORM_DRAIN_DELAY_MS: '1500',
    LOG_LEVEL: 'info',
  };
});

afterAll(async () => {
  await removeContainers();
  await Promise.all(containers.map((p) => p.exited));
  await redis?.stop();
  postgres?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`the image (${IMAGE})`, () => {
  it('is labelled with the platform version, runs as a user other than root, and has a health check', async () => {
    const { stdout } = await podman('image', 'inspect', IMAGE);
    // podman lists the health check beside Config, docker inside it
    type Health = { Healthcheck?: { Test: string[] } };
    const [inspected] = JSON.parse(stdout) as (Health & { Config: Health & { User: string; Labels: Record<string, string> } })[];
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(inspected!.Config.Labels['org.opencontainers.image.version']).toBe(version);
    expect(inspected!.Config.User).toBe('node');
    expect((inspected!.Healthcheck ?? inspected!.Config.Healthcheck)?.Test).toEqual(['CMD', '/app/deploy/entry.sh', 'health']);
  });

  it('migrate applies every migration once, then nothing', async () => {
    const first = container('migrate-1', 'migrate');
    expect(await first.exited).toBe(0);
    expect(first.output()).toMatch(/^Applied \d+ migration\(s\): 20261122071706_init, /m);
    const second = container('migrate-2', 'migrate');
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('Database is up to date.');
    // Without DATABASE_URL: SQLite in the image's data/ (a single-container trial), its drivers included.
    const { DATABASE_URL: _postgres, ...noDatabase } = env;
    const sqlite = startContainer(IMAGE, 'migrate-sqlite', 'migrate', noDatabase);
    containers.push(sqlite);
    expect(await sqlite.exited).toBe(0);
    expect(sqlite.output()).toMatch(/^Applied \d+ migration\(s\): 20261122071706_init, /m);
  });

  it('two API containers and a sender: ready, one service, a webhook delivered and verified, a SIGTERM drain that exits 0', async () => {
    const [port1, port2, senderPort] = [await freePort(), await freePort(), await freePort()];
    const api1 = container('api1', 'api', { PORT: String(port1) });
    const api2 = container('api2', 'api', { PORT: String(port2) });
    const sender = container('sender', 'sender', {
      PLATFORM_SENDER_METRICS_PORT: String(senderPort),
      PLATFORM_HEALTH_URL: `http://127.0.0.1:${senderPort}/readyz`,
    });
    const one = `http://127.0.0.1:${port1}`;
    const other = `http://127.0.0.1:${port2}`;
    for (const origin of [one, other, `http://127.0.0.1:${senderPort}`]) {
      await until(async () => (await call(`${origin}/readyz`).catch(() => undefined))?.status === 200, 120_000, `${origin}/readyz`);
    }
    expect((await call(`${one}/readyz`)).body).toEqual({ status: 'ready' });
    // The HEALTHCHECK's command passes in the API and in the sender (run with `podman exec`, not
    // `podman healthcheck run`, whose 10 s timeout a loaded machine can exceed in podman itself).
    for (const name of ['api1', 'sender']) await podman('exec', containerName(name), '/app/deploy/entry.sh', 'health');
    expect((await podman('exec', containerName('api1'), 'id', '-u')).stdout.trim()).toBe('1000');

    // The Admin API: a store and its app made through one replica, used through the other.
    const op = operatorAt(one);
    expect((await op.call('/stores', { body: { store: { handle: 'image', name: 'Image' } } })).status).toBe(201);
    const app = await op.call('/apps', {
      body: {
        app: { name: 'Hooks', kind: 'private', scopes: ['read_products', 'write_products', 'read_inventory'], store_handle: 'image' },
      },
    });
    expect(app.status).toBe(201);
    const token = String(app.body.access_token);
    const secret = String(app.body.app.app_secret);
    const receiver = await startReceiver();
    try {
      const subscribed = await call(admin(other, '/webhooks.json'), {
        token,
        body: { webhook: { topic: 'inventory_items/update', address: receiver.address } },
      });
      expect(subscribed.status).toBe(201);
      const made = await op.call('/stores/image/products', { body: { product: { title: 'Boxed', variants: [{ sku: 'BOX-1' }] } } });
      expect(made.status).toBe(201);
      const listed = await call(admin(other, '/products/products.json?fields=title'), { token });
      expect(listed.status).toBe(200);
      expect(listed.body.products).toEqual([{ id: String(made.body.product.id), title: 'Boxed' }]);
      const item = String(made.body.product.variants[0].inventory_item_id);
      const updated = await operatorAt(other).call(`/stores/image/inventory_items/${item}`, {
        method: 'PUT',
        body: { inventory_item: { cost: '3.50' } },
      });
      expect(updated.status).toBe(200);

      await until(() => receiver.received.length >= 1, 60_000, 'the webhook delivered');
      const [hook] = receiver.received;
      expect(hook!.headers['x-platform-topic']).toBe('inventory_items/update');
      expect(signedBy(hook!, secret)).toBe(true);
      expect(signedBy(hook!, 'another-secret')).toBe(false);
      expect(JSON.parse(hook!.body.toString())).toMatchObject({ inventory_item: { id: item, cost: '3.50' } });
    } finally {
      await receiver.close();
    }

    // SIGTERM to api1: not ready at once, still serving during the drain delay, then exit 0; the
    // other replica serves on.
    const stopping = api1.stop('SIGTERM');
    await until(async () => (await call(`${one}/readyz`).catch(() => undefined))?.status === 503, 10_000, 'api1 reports not ready');
    expect((await call(admin(one, '/products/products.json?limit=1'), { token })).status).toBe(200);
    expect(await stopping).toBe(0);
    expect(api1.output()).toMatch(/"signal":"SIGTERM".*"msg":"draining/);
    expect((await call(admin(other, '/products/products.json?limit=1'), { token })).status).toBe(200);
    expect(await sender.stop('SIGTERM')).toBe(0);
    expect(await api2.stop('SIGTERM')).toBe(0);
  });
});
