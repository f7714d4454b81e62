// The baselines of issue 17: a bare `node:http` server (no framework, no auth, no trace id, no
// version, no cursor) over the same database, answering `GET /products.json?limit=&since_id=` with
// the keyset query and the stored product documents of the page joined into the body.
//   MODE=string  the documents read as text and joined as strings (what a hand-written server does)
//   MODE=bytes   the documents read as bytes and Buffer.concat-ed (the floor: no text conversion)
// DRIVER=better-sqlite3 (DB_FILE) or pg (DATABASE_URL). Prints its port on the IPC channel.
import { createServer } from 'node:http';

const { MODE = 'string', DRIVER = 'better-sqlite3', DB_FILE, DATABASE_URL, STORE_ID } = process.env;
const column = MODE === 'bytes' ? 'listing_doc' : DRIVER === 'pg' ? "convert_from(listing_doc, 'UTF8')" : 'CAST(listing_doc AS TEXT)';

async function open() {
  if (DRIVER === 'better-sqlite3') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(DB_FILE, { readonly: true });
    const statement = db.prepare(`SELECT ${column} AS doc FROM products WHERE store_id = ? AND id > ? ORDER BY id LIMIT ?`).pluck();
    return async (since, limit) => statement.all(STORE_ID, since, limit);
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
  const text = `SELECT ${column} AS doc FROM products WHERE store_id = $1 AND id > $2 ORDER BY id LIMIT $3`;
  return async (since, limit) => (await pool.query({ text, values: [STORE_ID, since, limit], rowMode: 'array' })).rows.map((r) => r[0]);
}

const query = await open();
const OPEN = Buffer.from('{"products":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

const server = createServer(async (request, response) => {
  const url = new URL(request.url, 'http://x');
  const docs = await query(url.searchParams.get('since_id') ?? '0', Number(url.searchParams.get('limit') ?? 50));
  let body;
  if (MODE === 'bytes') {
    const parts = [OPEN];
    docs.forEach((doc, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(doc);
    });
    parts.push(CLOSE);
    body = Buffer.concat(parts);
  } else {
    body = `{"products":[${docs.join(',')}]}`;
  }
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  response.end(body);
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
