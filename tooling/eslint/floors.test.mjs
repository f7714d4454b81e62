// Each rule of the import graph check (floors.mjs) refusing a bad import, and the same files clean
// without it. `node --test`: dependency-cruiser runs on fixtures in a throwaway folder.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkArchitecture, readFloors } from './floors.mjs';

const base = mkdtempSync(join(tmpdir(), 'lint-floors-'));
after(() => rmSync(base, { recursive: true, force: true }));
let fixtures = 0;

const TABLE = `# Architecture

## Floors of \`src\`

| Floor | Rooms | What |
|---|---|---|
| 0 | \`config.ts\`, \`core/\` | kernel |
| 1 | \`http/\` | edge |
| 2 | \`stores/\`, \`apps/\` | features |
| 3 | \`main.ts\` | program |

## Next section

| 9 | \`ignored/\` | not a floor: another section |
`;

/** The rule lines the check reports for `files` (a fresh folder each time). */
async function check(files, markdown = TABLE) {
  const cwd = join(base, String(fixtures++));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(cwd, path, '..'), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  return checkArchitecture({ cwd, sources: ['src'], root: 'src', floors: readFloors(markdown) });
}

const value = (name, from) => `import { ${name} } from '${from}';\nexport const use = () => ${name};\n`;

describe('the import graph kept by lint (docs/architecture.md, "Floors")', () => {
  it('reads the floors table of its section only, bottom first', () => {
    assert.deepEqual(readFloors(TABLE), [
      { floor: 0, members: ['config.ts', 'core/'] },
      { floor: 1, members: ['http/'] },
      { floor: 2, members: ['stores/', 'apps/'] },
      { floor: 3, members: ['main.ts'] },
    ]);
    assert.throws(() => readFloors('# Architecture\n'), /no "Floors" section/);
  });

  it("reads the repository's own table, which names the kernel at the bottom and the program on top", () => {
    const floors = readFloors(readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8'));
    assert.ok(floors[0].members.includes('core/'), JSON.stringify(floors[0]));
    assert.ok(floors.at(-1).members.includes('main.ts'), JSON.stringify(floors.at(-1)));
  });

  it('refuses a cycle through a type-only import, also through a third file; a line is clean', async () => {
    const two = await check({
      'src/stores/a.ts': "import type { B } from './b';\nexport interface A { b: B }\n",
      'src/stores/b.ts': "import type { A } from './a';\nexport interface B { a?: A }\n",
    });
    assert.ok(
      two.some((line) => line.startsWith('no-circular: src/stores/')),
      two.join('\n'),
    );
    const three = await check({
      'src/stores/a.ts': "import type { B } from './b';\nexport type A = B[];\n",
      'src/stores/b.ts': "import type { C } from './c';\nexport type B = C[];\n",
      'src/stores/c.ts': "import type { A } from './a';\nexport type C = A | 1;\n",
    });
    assert.ok(three.filter((line) => line.startsWith('no-circular:')).length >= 1, three.join('\n'));
    assert.deepEqual(
      await check({
        'src/stores/a.ts': "import type { B } from './b';\nexport type A = B[];\n",
        'src/stores/b.ts': 'export type B = 1;\n',
      }),
      [],
    );
  });

  it('refuses an import up a floor, by value or by type; down and sideways are fine', async () => {
    const up = await check({
      'src/core/clock.ts': value('route', '../http/route'),
      'src/http/route.ts': "import type { Store } from '../stores/store';\nexport const route = (s?: Store) => s;\n",
      'src/stores/store.ts': 'export interface Store { id: 1 }\n',
      'src/config.ts': value('main', './main'),
      'src/main.ts': 'export const main = 1;\n',
    });
    assert.ok(up.includes('floor-0: src/core/clock.ts -> src/http/route.ts'), up.join('\n'));
    assert.ok(up.includes('floor-1: src/http/route.ts -> src/stores/store.ts'), up.join('\n'));
    assert.ok(up.includes('floor-0: src/config.ts -> src/main.ts'), up.join('\n'));
    assert.deepEqual(
      await check({
        'src/main.ts': value('apps', './apps/apps'),
        'src/apps/apps.ts': value('stores', '../stores/stores'),
        'src/stores/stores.ts': value('route', '../http/route'),
        'src/http/route.ts': value('config', '../config'),
        'src/config.ts': value('clock', './core/clock'),
        'src/core/clock.ts': 'export const clock = 1;\n',
      }),
      [],
    );
  });

  it('refuses a source that no floor names', async () => {
    const lines = await check({ 'src/orders/orders.ts': 'export const orders = 1;\n', 'src/core/clock.ts': 'export const clock = 1;\n' });
    assert.deepEqual(lines, ['no-floor: src/orders/orders.ts is on no floor']);
  });
});
