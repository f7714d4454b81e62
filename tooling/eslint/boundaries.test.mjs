// Each rule of the architecture (index.mjs) refusing a bad import, and the same files clean without it.
// `node --test`: ESLint runs on fixtures in a throwaway folder with the layer's config.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { layered } from './index.mjs';

const root = mkdtempSync(join(tmpdir(), 'lint-boundaries-'));
after(() => rmSync(root, { recursive: true, force: true }));

function write(path, text) {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** The rule ids and messages ESLint reports for `files` linted with `layer`'s config. */
async function lint(layer, files) {
  for (const [path, text] of Object.entries(files)) write(path, text);
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: layered(layer) });
  const results = await eslint.lintFiles(Object.keys(files));
  return results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`));
}

const uses = (name) => `import { x } from '${name}';\nexport const y = x;\n`;

describe('the architecture kept by lint (docs/architecture.md)', () => {
  it('domain imports nothing of ours and does no I/O', async () => {
    assert.match((await lint('domain', { 'domain/a.ts': uses('@platform/db') })).join('\n'), /imports nothing of ours/);
    assert.match((await lint('domain', { 'domain/b.ts': uses('@platform/contract/deep') })).join('\n'), /imports nothing of ours/);
    assert.match((await lint('domain', { 'domain/c.ts': uses('node:fs') })).join('\n'), /does no I\/O/);
    assert.deepEqual(await lint('domain', { 'domain/d.ts': uses('node:crypto') }), []);
  });

  it('contract never imports the apps, db or sdk; sdk never api or db; db none of them', async () => {
    assert.match((await lint('contract', { 'contract/a.ts': uses('@platform/db') })).join('\n'), /never imports the apps, db or sdk/);
    assert.deepEqual(await lint('contract', { 'contract/b.ts': uses('@platform/domain') }), []);
    assert.match((await lint('sdk', { 'sdk/a.ts': uses('@platform/db') })).join('\n'), /depends on contract and domain only/);
    assert.match((await lint('sdk', { 'sdk/b.ts': uses('@platform/api') })).join('\n'), /depends on contract and domain only/);
    assert.deepEqual(await lint('sdk', { 'sdk/c.ts': uses('@platform/contract') }), []);
    assert.deepEqual(await lint('sdk', { 'sdk/d.ts': uses('@platform/sdk') }), []);
    assert.match((await lint('sdk', { 'sdk/e.ts': uses('@platform/sdk/express') })).join('\n'), /only its main entry by name/);
    assert.match((await lint('db', { 'db/a.ts': uses('@platform/api') })).join('\n'), /below the apps/);
  });

  it('apps never import each other, by package name or by path', async () => {
    assert.match((await lint('api', { 'api/src/a.ts': uses('@platform/webhooks') })).join('\n'), /apps never import each other/);
    assert.match((await lint('api', { 'api/src/b.ts': uses('../../webhooks/src/sender') })).join('\n'), /apps never import each other/);
    assert.match((await lint('webhooks', { 'webhooks/src/a.ts': uses('@platform/api') })).join('\n'), /apps never import each other/);
  });

  it('keeps every never for relative paths too: no file reaches into another package by a path', async () => {
    // The packages of the fixtures, as in the repository: each folder has its package.json.
    const packages = {
      'domain/package.json': '{"name":"@platform/domain"}\n',
      'contract/package.json': '{"name":"@platform/contract"}\n',
      'db/package.json': '{"name":"@platform/db"}\n',
      'sdk/package.json': '{"name":"@platform/sdk"}\n',
      'api/package.json': '{"name":"@platform/api"}\n',
      'webhooks/package.json': '{"name":"@platform/webhooks"}\n',
    };
    for (const [path, text] of Object.entries(packages)) write(path, text);
    const target = { 'api/src/app.module.ts': 'export const x = 1;\n', 'db/src/index.ts': 'export const x = 1;\n' };
    for (const [path, text] of Object.entries(target)) write(path, text);
    const refused = async (layer, file, path) => {
      const messages = await lint(layer, { [file]: uses(path) });
      assert.ok(
        messages.some((m) => m.startsWith('import-x/no-relative-packages')),
        `${layer}: ${file} importing ${path}: ${messages.join('; ')}`,
      );
    };
    await refused('sdk', 'sdk/src/index.ts', '../../api/src/app.module');
    await refused('sdk', 'sdk/src/index.ts', '../../db/src/index');
    await refused('domain', 'domain/src/a.ts', '../../db/src/index');
    await refused('contract', 'contract/src/a.ts', '../../api/src/app.module');
    await refused('db', 'db/src/a.ts', '../../api/src/app.module');
    await refused('webhooks', 'webhooks/src/a.ts', '../../api/src/app.module');
    await refused('api', 'api/src/b.ts', '../../db/src/index');
    // Inside one package, relative paths are how files meet.
    assert.deepEqual(await lint('api', { 'api/src/c.ts': uses('./app.module') }), []);
  });

  it("a feature never reaches into another feature's repository; its own is fine", async () => {
    const messages = await lint('api', { 'api/src/orders/orders.service.ts': uses('../products/products.repository') });
    assert.match(messages.join('\n'), /another feature's repository/);
    assert.match(
      (await lint('api', { 'api/src/orders/pages/list.ts': uses('../../products/products.repository') })).join('\n'),
      /another feature's repository/,
    );
    assert.deepEqual(await lint('api', { 'api/src/orders/pages/view.ts': uses('../orders.repository') }), []);
    assert.deepEqual(await lint('api', { 'api/src/orders/orders.controller.ts': uses('./orders.service') }), []);
  });

  it('refuses an import cycle, also through a third file', async () => {
    const messages = await lint('api', {
      'api/src/cycle/a.ts': "import { b } from './b';\nexport const a = () => b();\n",
      'api/src/cycle/b.ts': "import { c } from './c';\nexport const b = () => c();\n",
      'api/src/cycle/c.ts': "import { a } from './a';\nexport const c = () => a;\n",
    });
    assert.ok(messages.filter((m) => m.startsWith('import-x/no-cycle')).length >= 3, messages.join('\n'));
    assert.deepEqual(
      await lint('api', {
        'api/src/line/a.ts': "import { b } from './b';\nexport const a = () => b();\n",
        'api/src/line/b.ts': 'export const b = () => 1;\n',
      }),
      [],
    );
  });
});
