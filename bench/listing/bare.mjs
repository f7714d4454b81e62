// The baseline: a bare Fastify server answering the same keyset query with the same SQLite driver,
// rendering the same JSON (same stored documents, same time formatting), with no auth, trace id,
// versioning, validation or framework around it.
import Fastify from 'fastify';
import { formatInZone } from '@platform/domain';

const { DB_FILE, DRIVER, STORE_ID, TIME_ZONE = 'UTC', PORT = '0' } = process.env;
const SQL = 'SELECT id, doc, published_at, created_at, updated_at FROM products WHERE store_id = ? AND id > ? ORDER BY id ASC LIMIT ?';

async function open() {
  if (DRIVER === 'better-sqlite3') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(DB_FILE);
    db.pragma('journal_mode = WAL');
    const statement = db.prepare(SQL);
    return async (args) => statement.all(...args);
  }
  const { createClient } = await import('@libsql/client');
  const client = createClient({ url: `file:${DB_FILE}` });
  await client.execute('PRAGMA journal_mode = WAL');
  return async (args) => (await client.execute({ sql: SQL, args })).rows;
}

const toDate = (v) => (v instanceof Date ? v : new Date(typeof v === 'bigint' ? Number(v) : v));
const time = (v) => (v === null ? 'null' : `"${formatInZone(toDate(v), TIME_ZONE)}"`);

const query = await open();
const app = Fastify({ logger: false });
app.get('/products.json', async (request, reply) => {
  const limit = Number(request.query.limit ?? 50);
  const since = request.query.since_id ?? '0';
  const rows = await query([STORE_ID, since, limit]);
  const products = rows.map(
    (r) => `{"id":"${r.id}",${r.doc.slice(1, -1)},"published_at":${time(r.published_at)},"created_at":${time(r.created_at)},"updated_at":${time(r.updated_at)}}`,
  );
  reply.header('content-type', 'application/json; charset=utf-8');
  return `{"products":[${products.join(',')}]}`;
});
await app.listen({ host: '127.0.0.1', port: Number(PORT) });
process.send?.({ port: app.server.address().port });
