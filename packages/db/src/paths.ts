import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Provider } from './provider';

let root: string | undefined;

/**
 * The package folder, found from this file whether it runs from src (tests) or dist: prisma/
 * (schemas, migrations) ships beside dist and is read at runtime.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = __dirname;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@platform/db') {
      root = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`@platform/db: package.json not found above ${__dirname}`);
    dir = parent;
  }
}

export const prismaDir = (): string => join(packageRoot(), 'prisma');
export const providerDir = (provider: Provider): string => join(prismaDir(), provider);
export const migrationsDir = (provider: Provider): string => join(providerDir(provider), 'migrations');
/** The schema the latest migration of a provider reflects; the next migration diffs from it. */
export const snapshotPath = (provider: Provider): string => join(migrationsDir(provider), 'schema-snapshot.prisma.txt');
