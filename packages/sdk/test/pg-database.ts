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
  return { url: url.toString(), drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
