// The baseline of the listing walk (issue 48): a bare node:http server answering the same walk from
// the same rows, `GET /s/{storeId}/products.json?limit=&since_id=`, with the keyset query, the stored
// listing documents joined as strings (as bare-http.mjs's string mode), and a link header to the
// next page built on the request's host, as the platform builds its own (no auth, no cursor
// signature, no cache). DRIVER=better-sqlite3 (DB_FILE) or pg (DATABASE_URL). Prints its port on
// the IPC channel.
import { createServer } from 'node:http';

const { DRIVER = 'better-sqlite3', DB_FILE, DATABASE_URL } = process.env;
const column = DRIVER === 'pg' ? "convert_from(listing_doc, 'UTF8')" : 'CAST(listing_doc AS TEXT)';
const text = `SELECT id, ${column} AS doc FROM products WHERE store_id = ? AND id > ? ORDER BY id LIMIT ?`;

async function open() {
  if (DRIVER === 'better-sqlite3') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(DB_FILE, { readonly: true });
    const statement = db.prepare(text).raw(true);
    return async (store, since, limit) => statement.all(store, since, limit);
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
  let n = 0;
  const sql = text.replace(/\?/g, () => `$${++n}`);
  return async (store, since, limit) => (await pool.query({ text: sql, values: [store, since, limit], rowMode: 'array' })).rows;
}

const query = await open();

const server = createServer(async (request, response) => {
  const url = new URL(request.url, 'http://x');
  const store = /^\/s\/(\d+)\/products\.json$/.exec(url.pathname)?.[1];
  if (!store) return response.writeHead(404).end();
  const limit = Number(url.searchParams.get('limit') ?? 50);
  // One more than the page tells whether a next page exists.
  const rows = await query(store, url.searchParams.get('since_id') ?? '0', limit + 1);
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const headers = { 'content-type': 'application/json; charset=utf-8' };
  if (more)
    headers.link = `<http://${request.headers.host}${url.pathname}?limit=${limit}&since_id=${rows[rows.length - 1][0]}>; rel="next"`;
  response.writeHead(200, headers);
  response.end(`{"products":[${rows.map((r) => r[1]).join(',')}]}`);
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
