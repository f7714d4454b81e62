import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createDb, inOutboxTransaction, readDeliveryCounts, type Db } from '@platform/db';
import { migratedTestDatabase } from '@platform/db/testing';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createSenderClock } from '../src/clock';
import { loadSenderConfig } from '../src/config';
import { createDeliveryAgent, type DeliveryAgentOptions } from '../src/deliver';
import { createSenderMetrics } from '../src/metrics';
import { createSender, type Sender } from '../src/sender';
import { createSql, type Sql } from '../src/sql';

export const MAIN = join(__dirname, '..', 'dist', 'main.js');

/**
 * A real database per test file with the schema applied: a SQLite file in a temp folder, or a new
 * PostgreSQL database when TEST_DATABASE_URL is set; a copy of a template this worker migrated once
 * (`@platform/db/testing`).
 */
export async function freshDatabase(): Promise<{ url: string; db: Db; drop(): Promise<void> }> {
  const database = await migratedTestDatabase({ prefix: 'sender', pgUrl: process.env.TEST_DATABASE_URL });
  const db = createDb(database.url);
  return {
    url: database.url,
    db,
    async drop() {
      await db.close();
      await database.drop();
    },
  };
}

export interface Fixture {
  storeId: bigint;
  appId: bigint;
  secret: string;
  handle: string;
  merchantId: bigint;
}

let seq = 0;

export async function storeAndApp(db: Db, ianaTimezone = 'UTC'): Promise<Fixture> {
  const now = new Date();
  const handle = `shop-${++seq}-${randomBytes(3).toString('hex')}`;
  const merchantId = BigInt(7000 + seq);
  const store = await db.prisma.store.create({
    data: { handle, name: 'Shop', email: 'a@example.com', customerEmail: 'c@example.com', ianaTimezone, merchantId, updatedAt: now },
  });
  const secret = randomBytes(24).toString('hex');
  const app = await db.prisma.app.create({
    data: { name: 'App', kind: 'private', appKey: randomBytes(8).toString('hex'), appSecret: secret, storeId: store.id, updatedAt: now },
  });
  return { storeId: store.id, appId: app.id, secret, handle, merchantId };
}

export async function subscription(db: Db, f: Fixture, address: string, topic = 'inventory_items/update') {
  return db.prisma.webhookSubscription.create({
    data: { storeId: f.storeId, appId: f.appId, topic, address, apiVersion: 'v20260901', updatedAt: new Date() },
  });
}

export interface DeliveryInput {
  body?: string;
  triggeredAt?: Date;
  nextAttemptAt?: Date;
  attempts?: number;
}

/** Writes deliveries as the outbox writer would (bodies are the exact bytes to send). */
export async function deliveries(
  db: Db,
  f: Fixture,
  sub: { id: bigint; topic: string },
  count: number,
  input: DeliveryInput = {},
): Promise<string[]> {
  const now = await clockNow(db);
  const ids: string[] = [];
  const rows = [];
  for (let i = 0; i < count; i++) {
    const webhookId = randomUUID();
    ids.push(webhookId);
    rows.push({
      storeId: f.storeId,
      appId: f.appId,
      subscriptionId: sub.id,
      topic: sub.topic,
      webhookId,
      apiVersion: 'v20260901',
      body: input.body ?? JSON.stringify({ inventory_item: { id: String(1000 + i), sku: `SKU-${i}`, tracked: true } }),
      triggeredAt: input.triggeredAt ?? now,
      nextAttemptAt: input.nextAttemptAt ?? now,
      attempts: input.attempts ?? 0,
      updatedAt: now,
    });
  }
  for (let i = 0; i < rows.length; i += 500) await db.prisma.webhookDelivery.createMany({ data: rows.slice(i, i + 500) });
  return ids;
}

/**
 * One event written as the API writes it (the outbox in its own transaction, the senders woken on
 * commit), for an app installed with the topic's scope. Returns the time of the commit.
 */
export async function outboxEvent(db: Db, f: Fixture, body: string): Promise<number> {
  const key = { storeId: f.storeId, appId: f.appId };
  await db.prisma.installation.upsert({
    where: { storeId_appId: key },
    create: { ...key, scopes: 'read_inventory', updatedAt: new Date() },
    update: {},
  });
  const now = await clockNow(db);
  await inOutboxTransaction(db, (_tx, emit) =>
    emit({ storeId: f.storeId, topic: 'inventory_items/update', now, render: () => body, appMayReceive: () => true }),
  );
  return Date.now();
}

/** The manual clock (decisions §10): the `platform_clock` row every process reads. */
export async function setClock(db: Db, at: Date): Promise<void> {
  await db.prisma.platformClock.upsert({
    where: { id: 1 },
    create: { id: 1, nowMs: BigInt(at.getTime()), updatedAt: new Date() },
    update: { nowMs: BigInt(at.getTime()), updatedAt: new Date() },
  });
}

export async function clockNow(db: Db): Promise<Date> {
  const row = await db.prisma.platformClock.findUnique({ where: { id: 1 } });
  return row ? new Date(Number(row.nowMs)) : new Date();
}

export async function advanceClock(db: Db, seconds: number): Promise<Date> {
  const at = new Date((await clockNow(db)).getTime() + seconds * 1000);
  await setClock(db, at);
  return at;
}

export interface Received {
  webhookId: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  at: number;
  path: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  handler: Handler;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on `host` (127.0.0.1 unless given: any 127.x.y.z is a loopback address of its
 * own, so tests can have many receiving hosts), port 0 unless given, answering with `handler`
 * (default 200); HTTPS with `secure`'s certificate and key.
 */
export async function receiver(
  handler: Handler = (_q, res) => res.writeHead(200).end('ok'),
  port = 0,
  host = '127.0.0.1',
  secure?: { cert: Buffer; key: Buffer },
): Promise<Receiver> {
  const received: Received[] = [];
  const r: Receiver = { url: '', port: 0, received, handler, close: async () => undefined };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({
        webhookId: String(req.headers['x-platform-webhook-id']),
        headers: req.headers,
        body,
        at: Date.now(),
        path: req.url ?? '',
      });
      r.handler(req, res, body);
    });
  };
  const server: Server = secure ? createHttpsServer(secure, onRequest) : createServer(onRequest);
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  r.port = (server.address() as AddressInfo).port;
  r.url = `${secure ? 'https' : 'http'}://${host}:${r.port}`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

/**
 * Requests open at once at one or more receivers: from the handler's call (the request is read) to
 * the response's close (answered, or the connection dropped: a killed sender's requests end too).
 * `overlaps` counts a webhook id arriving while a request of the same id is still open.
 */
export interface Meter {
  open: number;
  max: number;
  overlaps: number;
  enter(req: IncomingMessage, res: ServerResponse): void;
}

export function meter(): Meter {
  const openIds = new Set<string>();
  const m: Meter = {
    open: 0,
    max: 0,
    overlaps: 0,
    enter(req, res) {
      const id = String(req.headers['x-platform-webhook-id']);
      if (openIds.has(id)) m.overlaps++;
      openIds.add(id);
      m.open++;
      m.max = Math.max(m.max, m.open);
      res.once('close', () => {
        m.open--;
        openIds.delete(id);
      });
    },
  };
  return m;
}

/** CPU time a process has used so far, in clock ticks (1/100 s on Linux), from /proc. */
/** Polls `check` until it returns a truthy value (generous timeout: the machine is shared). */
export async function waitFor<T>(check: () => Promise<T> | T, what: string, timeoutMs = 60_000, everyMs = 25): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An in-process sender on `db` (the process tests spawn dist/main.js instead), its settings read
 * from `env` as main.ts reads them (PLATFORM_WEBHOOK_PROXY among them); `agent` gives its HTTP
 * agent a resolver or a CA of the test's own.
 */
export function inProcessSender(
  db: Db,
  env: Record<string, string> = {},
  agent: Pick<DeliveryAgentOptions, 'resolve' | 'tls'> = {},
  wrapSql: (sql: Sql) => Sql = (sql) => sql,
): Sender & { close(): Promise<void> } {
  const config = loadSenderConfig({
    DATABASE_URL: 'file:unused',
    PLATFORM_CLOCK: 'manual',
    PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLATFORM_SENDER_POLL_MS: '20',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const sql = wrapSql(createSql(db, { vacuumEvery: config.vacuumEvery }));
  const clock = createSenderClock(sql, config.clock, config.clockStart);
  const deliveryAgent = createDeliveryAgent({
    allowPrivate: config.allowPrivate,
    connectTimeoutMs: config.connectTimeoutMs,
    timeoutMs: config.timeoutMs,
    ...(config.proxy !== undefined ? { proxy: config.proxy } : {}),
    ...agent,
  });
  const metrics = createSenderMetrics(sql, clock);
  const logger = pino({ level: config.logLevel });
  const sender = createSender({ sql, config, clock, agent: deliveryAgent, metrics, logger });
  void sender.run();
  return Object.assign(sender, {
    metrics,
    async close() {
      await sender.stop();
      await sql.close();
      await deliveryAgent.close();
    },
  });
}

export interface SenderProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node dist/main.js` as a real child process; a variable given as null is left unset (its default applies). */
export function spawnSender(env: Record<string, string | null>): SenderProcess {
  let out = '';
  const merged: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLATFORM_SENDER_POLL_MS: '20',
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  const child = spawn(process.execPath, [MAIN], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited };
}

export async function statusCounts(db: Db): Promise<Record<string, number>> {
  const groups = await db.prisma.webhookDelivery.groupBy({ by: ['status'], _count: { _all: true } });
  return Object.fromEntries(groups.map((g) => [g.status, g._count._all]));
}

/** A port nobody listens on now (for a process's own listener). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A fresh database for the test file (SQLite, or PostgreSQL under TEST_DATABASE_URL): made before
 * its tests, `setup` run on it, dropped after them. Read `db` and `url` inside tests and hooks.
 */
export function fileDatabase(setup?: (db: Db) => Promise<void>): { readonly db: Db; readonly url: string } {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  beforeAll(async () => {
    database = await freshDatabase();
    await setup?.(database.db);
  });
  afterAll(async () => {
    await database?.drop();
  });
  const made = () => {
    if (!database) throw new Error('the file database is made in beforeAll: read it inside a test or hook');
    return database;
  };
  return {
    get db() {
      return made().db;
    },
    get url() {
      return made().url;
    },
  };
}

/** Closes what a test opens (receivers, senders) after it, the last opened first. */
export function closedAfterEach(): <T extends { close(): Promise<void> }>(thing: T) => T {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (closers.length) await closers.pop()!();
  });
  return (thing) => {
    closers.push(() => thing.close());
    return thing;
  };
}

/** The counts by status the triggers keep (webhook_delivery_counts) are the rows' own. */
export async function expectCountsInStep(db: Db): Promise<void> {
  const kept = Object.fromEntries([...(await readDeliveryCounts(db.query.bind(db)))].filter(([, n]) => n !== 0));
  expect(kept).toEqual(await statusCounts(db));
}
