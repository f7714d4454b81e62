/* A PostgreSQL database of a test file's own on TEST_DATABASE_URL's server, dropped at the end. */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

async function onServer(sql: string): Promise<void> {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function freshPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sdk_tokens_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => dropWhenIdle(name) };
}

/**
 * pg's `pool.end()` resolves before its connections have finished closing; a forced drop in that
 * moment terminates them, and their pool reports the FATAL as an 'error' event. So the drop waits
 * (up to 5 s) for the database's sessions to go away, and forces only what is left after that.
 */
async function dropWhenIdle(name: string): Promise<void> {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    for (let waited = 0; waited < 5_000; waited += 50) {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
      if ((rows[0] as { n: number }).n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
