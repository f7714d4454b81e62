/*
 * The main entry runs wherever fetch does (Node, Bun, Deno, Cloudflare Workers: runtimes/), so
 * nothing it reaches may import a Node built-in: the built ESM entry is bundled here as a Worker's
 * bundler would (platform neutral, every dependency included: zod, @ts-rest/core, @noble/hashes),
 * and every import of `node:*` or a bare built-in name (`fs`, `crypto`) on the way is reported.
 * Token stores and framework adapters are subpath entries that say which runtimes they need.
 */
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';

const DIST = join(__dirname, '..', 'dist');
const BUILTINS = new Set(builtinModules);

/** The Node built-ins `entry` reaches, as `importer -> module`. */
async function nodeImportsOf(entry: string, external: string[] = []): Promise<string[]> {
  const found: string[] = [];
  const watch: Plugin = {
    name: 'node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        const bare = args.path.replace(/^node:/, '').split('/')[0]!;
        if (!args.path.startsWith('node:') && !BUILTINS.has(bare)) return undefined;
        found.push(`${args.importer.replace(/^.*node_modules\//, '')} -> ${args.path}`);
        return { path: args.path, external: true };
      });
    },
  };
  await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    mainFields: ['module', 'main'],
    logLevel: 'silent',
    external,
    plugins: [watch],
  });
  return found;
}

describe('the main entry', () => {
  it('reaches no Node built-in, its dependencies included', async () => {
    expect(await nodeImportsOf(join(DIST, 'index.mjs'))).toEqual([]);
  });

  it('(the check finds them: the SQLite entry, Node only, imports fs)', async () => {
    const found = await nodeImportsOf(join(DIST, 'sqlite.mjs'), ['@platform/sdk', 'better-sqlite3']);
    expect(found).toContainEqual(expect.stringMatching(/sqlite\.mjs -> (node:)?fs$/));
  });
});
