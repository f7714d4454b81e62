// The Prisma schema engine as WebAssembly (toolchain guide, "Prisma 7 without engine downloads"): the
// CLI's migrate commands need a native engine that cannot be downloaded here, so migrations are
// created (diff) and applied (applyMigrations) through @prisma/schema-engine-wasm and a driver adapter.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { PrismaLibSql } from '@prisma/adapter-libsql';
import { migrationsDir, prismaDir, providerDir } from './paths';
import type { Provider } from './provider';

type Bg = typeof import('@prisma/schema-engine-wasm/schema_engine_bg', { with: { 'resolution-mode': 'import' } });
export type SchemaEngine = Awaited<ReturnType<Bg['SchemaEngine']['new']>>;
export type MigrationList = Parameters<SchemaEngine['applyMigrations']>[0]['migrationsList'];
export interface SchemaFile {
  path: string;
  content: string;
}

// Node 20's @types/node does not declare WebAssembly; only these two calls are needed.
interface WasmApi {
  instantiate(bytes: Uint8Array, imports: Record<string, unknown>): Promise<{ instance: { exports: Record<string, unknown> } }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export const NO_FILTER = { externalTables: [], externalEnums: [] };

let bgPromise: Promise<Bg> | undefined;

/**
 * The package's default entry imports the .wasm file as a module, which Node rejects, so load the
 * JS glue (an ES module) and instantiate the bytes beside it ourselves, once per process.
 */
function loadEngine(): Promise<Bg> {
  bgPromise ??= (async () => {
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bg = (await import('@prisma/schema-engine-wasm/schema_engine_bg')) as Bg;
    const bytes = await readFile(join(dirname(gluePath), 'schema_engine_bg.wasm'));
    const { instance } = await wasmApi.instantiate(bytes, { './schema_engine_bg.js': bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports['__wbindgen_start'] as () => void)();
    return bg;
  })();
  bgPromise.catch(() => {
    bgPromise = undefined;
  });
  return bgPromise;
}

export type EngineLog = (line: string) => void;

/** Only warnings and errors of the engine's JSON log lines are worth showing. */
function engineLogger(log: EngineLog | undefined): (line: string) => void {
  return (line: string) => {
    if (!log) return;
    try {
      const parsed = JSON.parse(line) as { level?: string; fields?: { message?: string } };
      if (parsed.level === 'WARN' || parsed.level === 'ERROR') log(`schema engine ${parsed.level}: ${parsed.fields?.message ?? line}`);
    } catch {
      log(line);
    }
  };
}

/**
 * Runs `fn` with a schema engine connected through `factory`, then disposes every connection the
 * engine opened (the engine itself never closes them, and an open pg pool would keep the process alive).
 */
export async function withEngine<T>(
  factory: SqlMigrationAwareDriverAdapterFactory,
  datamodels: SchemaFile[],
  fn: (engine: SchemaEngine) => Promise<T>,
  log?: EngineLog,
): Promise<T> {
  const bg = await loadEngine();
  const opened: SqlDriverAdapter[] = [];
  const tracking: SqlMigrationAwareDriverAdapterFactory = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      opened.push(adapter);
      return adapter;
    },
    connectToShadowDb: async () => {
      const adapter = await factory.connectToShadowDb();
      opened.push(adapter);
      return adapter;
    },
  };
  let engine: SchemaEngine | undefined;
  try {
    engine = await bg.SchemaEngine.new(
      { datamodels: datamodels.map((f) => [f.path, f.content] as [string, string]) },
      engineLogger(log),
      bindMigrationAwareSqlAdapterFactory(tracking),
    );
    return await fn(engine);
  } catch (error) {
    throw asError(error);
  } finally {
    engine?.free();
    await Promise.allSettled(opened.map((adapter) => adapter.dispose()));
  }
}

/** Diffs between two datamodels need no database: an in-memory SQLite connection satisfies the engine. */
export function withOfflineEngine<T>(datamodels: SchemaFile[], fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  // Loaded here, not at the top: a start of the API or the sender never diffs (sqlite.ts says why).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const { PrismaLibSql: Adapter } = require('@prisma/adapter-libsql') as { PrismaLibSql: typeof PrismaLibSql };
  return withEngine(new Adapter({ url: ':memory:' }), datamodels, fn);
}

/** The engine rejects with plain objects or strings at times; callers deserve an Error. */
function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (typeof error === 'string') return new Error(error);
  const message = (error as { message?: unknown } | null)?.message;
  return new Error(typeof message === 'string' ? message : JSON.stringify(error));
}

/** The current schema of a provider: its generator + datasource and the shared models. */
export function currentSchemaFiles(provider: Provider): SchemaFile[] {
  return [
    { path: 'schema.prisma', content: readFileSync(join(providerDir(provider), 'schema.prisma'), 'utf8') },
    { path: 'models.prisma', content: readFileSync(join(prismaDir(), 'models.prisma'), 'utf8') },
  ];
}

/** The migrations folder as the engine wants it (what `prisma migrate deploy` reads from disk). */
export function readMigrationList(provider: Provider, baseDir: string = migrationsDir(provider)): MigrationList {
  const lockPath = join(baseDir, 'migration_lock.toml');
  const directories = existsSync(baseDir)
    ? readdirSync(baseDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: directories.map((name) => {
      const file = join(baseDir, name, 'migration.sql');
      return {
        // the bare directory name: it becomes migration_name in _prisma_migrations
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: existsSync(file)
            ? { tag: 'ok' as const, value: readFileSync(file, 'utf8') }
            : { tag: 'error' as const, value: `${file} is missing` },
        },
      };
    }),
  };
}

export function lockfileContent(provider: Provider): string {
  return `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "${provider}"\n`;
}
