import { createServer, type Server, type Socket } from 'node:net';
import { createDb, type Db } from '@platform/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorResponse } from '../http/errors.filter';

/**
 * Issue 43 finding 7: the errors the real drivers (pg, Prisma through its pg adapter) raise when
 * PostgreSQL refuses or cuts connections as it does while shutting down or starting up. A
 * loopback server that speaks just enough of PostgreSQL's wire protocol plays the server at those
 * moments, which a real one passes through in milliseconds (the cluster suite stops and starts a
 * real one under load).
 */
type Behaviour = 'starting up' | 'shutting down' | 'cut by a fast shutdown' | 'reset';

/** ErrorResponse ('E'): severity, SQLSTATE, message. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', code],
      ['M', message],
    ].map(([type, value]) => Buffer.from(`${type}${value}\0`)),
  );
  const body = Buffer.concat([fields, Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** AuthenticationOk then ReadyForQuery (idle): a session that accepts queries. */
const SESSION_READY = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]);

function fakeServer(behaviour: () => Behaviour): Server {
  return createServer((socket: Socket) => {
    let started = false;
    socket.on('error', () => {});
    socket.on('data', () => {
      const now = behaviour();
      if (!started && now === 'starting up') return void socket.end(errorResponse('57P03', 'the database system is starting up'));
      if (!started && now === 'shutting down') return void socket.end(errorResponse('57P03', 'the database system is shutting down'));
      if (!started) {
        started = true;
        return void socket.write(SESSION_READY);
      }
      // A query on an open session.
      if (now === 'reset') return void socket.resetAndDestroy();
      socket.end(errorResponse('57P01', 'terminating connection due to administrator command'));
    });
  });
}

describe("the drivers' errors while PostgreSQL cannot serve are 503, not 500", () => {
  let behaviour: Behaviour = 'starting up';
  let server: Server;
  let db: Db;

  beforeAll(async () => {
    server = fakeServer(() => behaviour);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    db = createDb(`postgresql://postgres@127.0.0.1:${port}/platform`);
  });
  afterAll(async () => {
    await db.close().catch(() => undefined);
    await new Promise((resolve) => server.close(resolve));
  });

  const operations: [string, (db: Db) => Promise<unknown>][] = [
    ['a Prisma read (P2039)', (d) => d.prisma.store.findFirst()],
    ['a raw Prisma statement (P2010)', (d) => d.prisma.$executeRawUnsafe('SELECT 1')],
    ['a Prisma transaction', (d) => d.prisma.$transaction(async (tx) => tx.store.findFirst())],
    ['a direct pg query (Db.query)', (d) => d.query('SELECT 1 AS ok')],
  ];

  for (const state of ['starting up', 'shutting down', 'cut by a fast shutdown', 'reset'] as const) {
    for (const [name, operation] of operations) {
      it(`${name}, the server ${state}`, async () => {
        behaviour = state;
        const error = await operation(db).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeDefined();
        expect(toErrorResponse(error)).toEqual({ status: 503, message: 'The database is unavailable; try again shortly' });
      });
    }
  }
});
