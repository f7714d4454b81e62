import { readdirSync } from 'node:fs';
import pg from 'pg';
import { migrationsDir } from './paths';
import type { Provider } from './provider';

// Shared by the package's test files; kept out of the build (tsconfig.build.json).

/** The migration folders of a provider, in the order they apply. */
export function migrationNames(provider: Provider): string[] {
  return readdirSync(migrationsDir(provider), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/**
 * A database of its own on the TEST_DATABASE_URL server, so a suite starts from an empty schema and
 * others running at once are not disturbed. Nothing is touched until `create`.
 */
export function throwawayPgDatabase(serverUrl: string | undefined, prefix: string) {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  /** One statement on the server's own database (made, dropped, backends ended). */
  const admin = async (sql: string, params: unknown[] = []): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql, params);
    } finally {
      await client.end();
    }
  };
  return {
    name,
    url(): string {
      const u = new URL(serverUrl!);
      u.pathname = `/${name}`;
      return u.toString();
    },
    admin,
    create: () => admin(`CREATE DATABASE ${name}`),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
