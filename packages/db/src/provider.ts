import { isAbsolute, resolve } from 'node:path';

export type Provider = 'sqlite' | 'postgresql';

/** `file:` selects SQLite, `postgres://` / `postgresql://` PostgreSQL (decisions §12.1). */
export function providerOf(url: string): Provider {
  if (url.startsWith('file:')) return 'sqlite';
  if (url.startsWith('postgresql://') || url.startsWith('postgres://')) return 'postgresql';
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? '(none)';
  throw new Error(
    `Unsupported database URL scheme "${scheme}": use file:<path> for SQLite or postgresql://... for PostgreSQL`,
  );
}

/**
 * Absolute path of the database file of a `file:` URL. Relative paths (`file:./data/platform.db`)
 * are resolved against the process's cwd; `file:/abs` and `file:///abs` are absolute. Query
 * parameters are not supported (both drivers are configured in code instead).
 */
export function sqliteFilePath(url: string, cwd: string = process.cwd()): string {
  if (!url.startsWith('file:')) throw new Error(`Not a SQLite file: URL: ${url}`);
  let rest = url.slice('file:'.length);
  if (rest.includes('?')) throw new Error(`SQLite URL must not carry query parameters: ${url}`);
  if (rest.startsWith('//')) {
    // file://<host>/path: only an empty host or localhost makes sense for a local file.
    const slash = rest.indexOf('/', 2);
    const host = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    if (host !== '' && host !== 'localhost') throw new Error(`SQLite URL names a remote host: ${url}`);
    rest = slash === -1 ? '' : rest.slice(slash);
  }
  rest = decodeURIComponent(rest);
  if (rest === '' || rest === ':memory:') throw new Error(`SQLite URL must name a file: ${url}`);
  return isAbsolute(rest) ? rest : resolve(cwd, rest);
}
