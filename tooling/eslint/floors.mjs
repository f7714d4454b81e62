// The floors of apps/api/src (docs/architecture.md, "Floors") and the import graph check that keeps
// them, with dependency-cruiser: ESLint's import-x/no-cycle skips type-only imports, and a cycle
// through a type is still two files that cannot be understood (or moved) one without the other.
// dependency-cruiser reads the TypeScript sources before compilation (`tsPreCompilationDeps`), so
// `import type` counts as an arrow like any other.
import { cruise } from 'dependency-cruiser';

/**
 * The floors table of `markdown` (the section whose heading names "Floors"): one entry per row, the
 * floor's number (bottom 0) and its members, each a folder (`core/`) or a file (`main.ts`) of the
 * source root, as the row's first column names them in backticks.
 */
export function readFloors(markdown) {
  const section = /^##+ .*Floors.*$/m.exec(markdown);
  if (!section) throw new Error('docs/architecture.md: no "Floors" section');
  const rest = markdown.slice(section.index + section[0].length);
  const end = /^##+ /m.exec(rest);
  const floors = [];
  for (const line of (end ? rest.slice(0, end.index) : rest).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | 3 | `stores/`, `apps/` | what ... |
    if (cells.length < 4 || !/^\d+$/.test(cells[1])) continue;
    const members = [...cells[2].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    if (members.length === 0) throw new Error(`floors table: floor ${cells[1]} names no folder or file`);
    floors.push({ floor: Number(cells[1]), members });
  }
  if (floors.length === 0) throw new Error('docs/architecture.md: the "Floors" section has no table rows');
  return floors.sort((a, b) => a.floor - b.floor);
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A path regex for members of the source root: `core/` is the folder, `main.ts` the file. */
function membersPath(root, members) {
  const alternatives = members.map((m) => (m.endsWith('/') ? `${escape(m)}` : `${escape(m)}$`));
  return `^${escape(root)}/(${alternatives.join('|')})`;
}

/** dependency-cruiser rules: no module cycle anywhere (types counted); under `root`, no arrow up a floor. */
export function architectureRules(root, floors) {
  const rules = [
    {
      name: 'no-circular',
      comment: 'no file imports a file that imports it back, through any number of files; type-only imports count',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ];
  for (const [i, { floor, members }] of floors.entries()) {
    const above = floors.slice(i + 1).flatMap((f) => f.members);
    if (above.length === 0) continue;
    rules.push({
      name: `floor-${floor}`,
      comment: `floor ${floor} (${members.join(', ')}) imports only its own floor and those below (docs/architecture.md, "Floors")`,
      severity: 'error',
      from: { path: membersPath(root, members) },
      to: { path: membersPath(root, above) },
    });
  }
  return rules;
}

/**
 * Cruises `sources` (folders or files, relative to `cwd`) and returns one line per broken rule, and
 * one per source under `root` that no floor names (a new folder is placed in the table first).
 */
export async function checkArchitecture({ cwd, sources, root, floors }) {
  const result = await cruise(
    sources,
    {
      baseDir: cwd,
      validate: true,
      ruleSet: { forbidden: architectureRules(root, floors) },
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: '(^|/)(node_modules|dist|generated)/|\\.test\\.ts$' },
      outputType: 'json',
    },
    { extensions: ['.ts', '.mts', '.js', '.mjs', '.d.ts'] },
  );
  const output = typeof result.output === 'string' ? JSON.parse(result.output) : result.output;
  const lines = output.summary.violations.map((v) =>
    v.cycle ? `${v.rule.name}: ${[v.from, ...v.cycle.map((c) => c.name ?? c)].join(' -> ')}` : `${v.rule.name}: ${v.from} -> ${v.to}`,
  );
  const everyMember = floors.flatMap((f) => f.members);
  const placed = new RegExp(membersPath(root, everyMember));
  for (const module of output.modules) {
    if (module.source.startsWith(`${root}/`) && !placed.test(module.source)) lines.push(`no-floor: ${module.source} is on no floor`);
  }
  return lines;
}
