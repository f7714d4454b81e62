// Run by the Dockerfile after `pnpm install --prod` of the image's packages: keeps in
// node_modules/.pnpm only what their production dependencies reach. pnpm links an optional peer that
// the workspace has (@prisma/client's `prisma` and `typescript`, dev tools of @platform/db's build)
// even in a production install, and with it about 450 MB of the Prisma CLI's own dependencies that
// nothing loads at run time. Also drops native addons' intermediate build files (node-gyp's obj/).
//   node deploy/image/prune.mjs <workspace root> <package folder>...
import { lstatSync, readdirSync, realpathSync, rmSync, unlinkSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/** Peers linked for the build only; nothing the image runs requires them. */
const BUILD_ONLY_PEERS = new Set(['prisma', 'typescript']);

const [root, ...packages] = process.argv.slice(2).map((p) => resolve(p));
if (!root || packages.length === 0) {
  console.error('usage: node deploy/image/prune.mjs <workspace root> <package folder>...');
  process.exit(2);
}
const store = join(root, 'node_modules', '.pnpm');
const reached = new Set();
const queue = [];

/** The links of a node_modules folder (scoped ones too). */
function links(folder) {
  let names;
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (name.startsWith('.')) return [];
    if (name.startsWith('@')) return readdirSync(join(folder, name)).map((inner) => [`${name}/${inner}`, join(folder, name, inner)]);
    return [[name, join(folder, name)]];
  });
}

function visit(folder) {
  for (const [name, path] of links(folder)) {
    if (!lstatSync(path).isSymbolicLink()) continue;
    if (BUILD_ONLY_PEERS.has(name)) {
      unlinkSync(path);
      continue;
    }
    let target;
    try {
      target = realpathSync(path);
    } catch {
      continue; // a link to nothing (already pruned)
    }
    const inside = relative(store, target);
    if (inside.startsWith('..')) continue; // a workspace package: visited as one of `packages`
    const entry = inside.split(sep)[0];
    if (!reached.has(entry)) {
      reached.add(entry);
      queue.push(join(store, entry, 'node_modules'));
    }
  }
}

for (const pkg of packages) visit(join(pkg, 'node_modules'));
while (queue.length > 0) visit(queue.pop());

let removed = 0;
for (const entry of readdirSync(store)) {
  if (entry === 'node_modules' || entry.startsWith('.') || entry.endsWith('.yaml')) continue;
  if (!reached.has(entry)) {
    rmSync(join(store, entry), { recursive: true, force: true });
    removed++;
  }
}
// The hoisted links of .pnpm/node_modules to what is gone.
for (const [, path] of links(join(store, 'node_modules'))) {
  try {
    realpathSync(path);
  } catch {
    if (lstatSync(path).isSymbolicLink()) unlinkSync(path);
  }
}
// node-gyp's intermediate files beside a built addon (the .node file stays).
for (const entry of reached) {
  for (const [, path] of links(join(store, entry, 'node_modules'))) {
    if (lstatSync(path).isSymbolicLink()) continue;
    const release = join(path, 'build', 'Release');
    for (const name of ['obj', 'obj.target', '.deps']) rmSync(join(release, name), { recursive: true, force: true });
  }
}
console.log(`prune: kept ${reached.size} packages, removed ${removed}`);
