import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';

export type Provider = 'sqlite' | 'postgresql';

/**
 * A URL fit for a message or a log line: the password of `scheme://user:password@host` (and of any
 * `user:password@` before the host) is replaced by `***` (issue 8: a bad DATABASE_URL was echoed
 * whole, password included).
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i, (_match, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${scheme}${colon === -1 ? userinfo : `${userinfo.slice(0, colon)}:***`}@`;
  });
}

/**
 * The folder (0700) and the file (0600) of a SQLite database, made before a driver opens it: the
 * file holds app secrets, so only the service's user may read it. SQLite gives the -wal and -shm
 * files the database file's mode. An existing file is narrowed to 0600. An existing folder is
 * narrowed to 0700 only when it is the database's own (it holds nothing but the database and its
 * -wal/-shm/-journal files): a folder shared with anything else (`file:/tmp/x.db`, a home
 * directory) is never touched, or a database URL could lock every other user out of `/tmp`.
 */
export function prepareSqliteFile(file: string): void {
  const dir = dirname(file);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined || holdsOnlyDatabase(dir, basename(file))) chmodSync(dir, 0o700);
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

function holdsOnlyDatabase(dir: string, name: string): boolean {
  const stat = statSync(dir);
  // A sticky folder (/tmp) is shared by definition; one owned by another user is not ours to narrow.
  if ((stat.mode & 0o1000) !== 0 || (typeof process.getuid === 'function' && stat.uid !== process.getuid())) return false;
  return readdirSync(dir).every((entry) => entry === name || entry.startsWith(`${name}-`));
}

/** `file:` selects SQLite, `postgres://` / `postgresql://` PostgreSQL (decisions §12.1). */
export function providerOf(url: string): Provider {
  if (url.startsWith('file:')) return 'sqlite';
  if (url.startsWith('postgresql://') || url.startsWith('postgres://')) return 'postgresql';
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? '(none)';
  throw new Error(`Unsupported database URL scheme "${scheme}": use file:<path> for SQLite or postgresql://... for PostgreSQL`);
}

/**
 * Absolute path of the database file of a `file:` URL. Relative paths (`file:./data/platform.db`)
 * are resolved against the process's cwd; `file:/abs` and `file:///abs` are absolute. Query
 * parameters are not supported (both drivers are configured in code instead).
 */
export function sqliteFilePath(url: string, cwd: string = process.cwd()): string {
  if (!url.startsWith('file:')) throw new Error(`Not a SQLite file: URL: ${redactUrl(url)}`);
  let rest = url.slice('file:'.length);
  if (rest.includes('?')) throw new Error(`SQLite URL must not carry query parameters: ${redactUrl(url)}`);
  if (rest.startsWith('//')) {
    // file://<host>/path: only an empty host or localhost makes sense for a local file.
    const slash = rest.indexOf('/', 2);
    const host = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    if (host !== '' && host !== 'localhost') throw new Error(`SQLite URL names a remote host: ${redactUrl(url)}`);
    rest = slash === -1 ? '' : rest.slice(slash);
  }
  rest = decodeURIComponent(rest);
  if (rest === '' || rest === ':memory:') throw new Error(`SQLite URL must name a file: ${redactUrl(url)}`);
  return isAbsolute(rest) ? rest : resolve(cwd, rest);
}
