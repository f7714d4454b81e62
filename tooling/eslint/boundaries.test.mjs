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
async function lint(layer, files, options) {
  for (const [path, text] of Object.entries(files)) write(path, text);
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: layered(layer, options) });
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

  describe('one owner per table (table-owners.mjs)', () => {
    // A schema as models.prisma writes it: owner lines among the doc comments, relations by model name.
    const SCHEMA = `/// A product.
/// owner: products
model Product {
  id       BigInt    @id
  storeId  BigInt    @map("store_id")
  store    Store     @relation(fields: [storeId], references: [id])
  variants Variant[]
  @@map("products")
}

/// owner: products
model Variant {
  id        BigInt  @id
  productId BigInt  @map("product_id")
  product   Product @relation(fields: [productId], references: [id])
  @@map("product_variants")
}

/// owner: stores (why it is theirs)
model Store {
  id       BigInt    @id
  products Product[]
  @@map("stores")
}
`;
    write('owners/models.prisma', SCHEMA);
    const tables = { schema: join(root, 'owners/models.prisma'), sources: join(root, 'owners/src') };
    const owned = async (path, text, schema) => {
      if (schema) write('owners/other.prisma', schema);
      const options = { tables: schema ? { ...tables, schema: join(root, 'owners/other.prisma') } : tables };
      return (await lint('api', { [`owners/src/${path}`]: text }, options)).filter((m) => m.startsWith('platform/table-owners'));
    };
    const repository = (body) => `export class R {\n  constructor(private readonly db: any) {}\n  run(tx: any) {\n    ${body}\n  }\n}\n`;

    it("refuses a Prisma read or write of another room's table; the owner's own are fine", async () => {
      assert.match(
        (await owned('inventory/a.repository.ts', repository('return this.db.prisma.product.findMany({});'))).join('\n'),
        /inventory reads products, which products owns/,
      );
      assert.match(
        (await owned('inventory/b.repository.ts', repository('return tx.variant.update({ where: { id: 1n }, data: {} });'))).join('\n'),
        /inventory writes product_variants, which products owns: call products's service with your transaction/,
      );
      assert.deepEqual(
        await owned('products/c.repository.ts', repository('return tx.variant.deleteMany({ where: { productId: 1n } });')),
        [],
      );
      // A method of a service field that happens to share a name is no table (`this.stores` is not a delegate).
      assert.deepEqual(await owned('inventory/d.service.ts', repository('return this.stores.create({});')), []);
    });

    it('refuses a read through a relation, and a nested write under data', async () => {
      const through = await owned(
        'products/e.repository.ts',
        repository(
          'return tx.variant.findFirst({ where: { id: 1n }, select: { product: { select: { store: { select: { id: true } } } } } });',
        ),
      );
      assert.deepEqual(through, [
        "platform/table-owners: products reads stores, which stores owns: ask stores's service, or read it in a read model (*.read-model.ts) of products",
      ]);
      const nested = await owned(
        'stores/f.repository.ts',
        repository('return tx.store.update({ where: { id: 1n }, data: { products: { create: [{ id: 2n }] } } });'),
      );
      assert.match(nested.join('\n'), /stores writes products, which products owns/);
      const connect = await owned(
        'products/g.repository.ts',
        repository('return tx.product.create({ data: { id: 1n, store: { connect: { id: 2n } } } });'),
      );
      assert.deepEqual(connect, []);
    });

    it("refuses SQL on another room's table, and the bulk helpers named with it", async () => {
      const sql = await owned(
        'inventory/h.repository.ts',
        repository(
          'await tx.$executeRaw`UPDATE products SET updated_at = updated_at WHERE id = ${1}`;\n    return this.db.query(`SELECT s.id FROM stores s JOIN product_variants v ON 1 = 1 WHERE s.id = ?`, [1]);',
        ),
      );
      assert.match(sql.join('\n'), /inventory writes products/);
      assert.match(sql.join('\n'), /inventory reads stores/);
      assert.match(sql.join('\n'), /inventory reads product_variants/);
      const bulk = await owned(
        'inventory/i.repository.ts',
        "import { insertRows } from '@platform/db';\nexport const put = (tx: any, db: any) => insertRows(tx, db, 'products', [], []);\n",
      );
      assert.match(bulk.join('\n'), /inventory writes products/);
      // DELETE FROM is a write, not also a read; prose is not SQL.
      const deleted = await owned(
        'inventory/j.repository.ts',
        repository("return this.db.query('DELETE FROM stores WHERE id = ?', [1]) ?? 'Remove it from stores first';"),
      );
      assert.deepEqual(deleted, [
        "platform/table-owners: inventory writes stores, which stores owns: call stores's service with your transaction",
      ]);
    });

    it("lets a read model read other rooms' tables, never write them", async () => {
      const read = 'return this.db.query(`SELECT p.id FROM products p JOIN stores s ON s.id = p.store_id`, []);';
      assert.deepEqual(await owned('merchant/pages.read-model.ts', repository(read)), []);
      assert.match((await owned('merchant/pages.repository.ts', repository(read))).join('\n'), /merchant reads products/);
      assert.match(
        (await owned('merchant/pages.read-model.ts', repository('return tx.product.updateMany({ data: {} });'))).join('\n'),
        /merchant writes products/,
      );
    });

    it('refuses a schema whose model names no owner, or two', async () => {
      const none = await owned(
        'stores/k.repository.ts',
        'export const k = 1;\n',
        SCHEMA.replace('/// owner: stores (why it is theirs)\n', ''),
      );
      assert.match(none.join('\n'), /models\.prisma: model Store \(stores\) has no `\/\/\/ owner: <room>` line/);
      const two = await owned(
        'stores/l.repository.ts',
        'export const l = 1;\n',
        SCHEMA.replace('/// owner: products\nmodel Variant', '/// owner: products\n/// owner: inventory\nmodel Variant'),
      );
      assert.match(two.join('\n'), /model Variant \(product_variants\) names 2 owners/);
    });
  });
});
