import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';
import { PLATFORM_ENV, storeWithProducts } from './metafields.helpers';

/*
 * Value writes beside concurrent edits of their definition, found by bench/load: after its retries
 * a write answered 500; now 409 with {"errors"}, nothing written. (On SQLite one process runs one
 * transaction at a time, so the race shows on PostgreSQL, in the test:pg run. The SQLite half of
 * that finding, a write beside another process's commits: packages/db sqlite-transactions.test.ts.)
 */

let t: TestPlatform;
let shop: Awaited<ReturnType<typeof storeWithProducts>>;

beforeAll(async () => {
  t = await startPlatform(PLATFORM_ENV);
  shop = await storeWithProducts(t, 'busy', 20);
  await shop.api.define({ namespace: 'busy', key: 'code', type: 'single_line_text_field' });
});
afterAll(() => t.close());

/** Runs `writes` value writes, `concurrency` at a time, and counts the answers by status. */
async function write(writes: number, concurrency: number): Promise<{ statuses: Record<number, number>; bad: string[] }> {
  const statuses: Record<number, number> = {};
  const bad: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < writes) {
        const n = next++;
        const r = await shop.api.create(shop.productIds[n % shop.productIds.length]!, { namespace: 'busy', key: 'code', value: `V-${n}` });
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status >= 500 || (r.status >= 400 && typeof r.body?.errors !== 'string')) bad.push(`${r.status} ${r.text}`);
      }
    }),
  );
  return { statuses, bad };
}

describe('metafield value writes beside concurrent edits', () => {
  /** Four editors without pause, each edit made by `edit(e, i)`, while `writes` values are written. */
  async function writesWhileEdited(edit: (e: number, i: number) => Record<string, unknown>) {
    let stop = false;
    const edits = Array.from({ length: 4 }, async (_, e) => {
      for (let i = 0; !stop; i++) await shop.api.redefine({ namespace: 'busy', key: 'code', ...edit(e, i) });
    });
    const result = await write(200, 6);
    stop = true;
    await Promise.all(edits);
    return result;
  }

  it('are never refused for edits of the name or description, which decide nothing about a value', async () => {
    const { statuses, bad } = await writesWhileEdited((e, i) => ({ description: `edit ${e}.${i}`, name: `Code ${e}.${i}` }));
    expect(bad).toEqual([]);
    expect(
      Object.keys(statuses)
        .map(Number)
        .every((s) => s === 200 || s === 201),
    ).toBe(true);
  });

  it('answer 2xx or 409 with {"errors"}, never 500, while their rules are edited without pause', async () => {
    const { statuses, bad } = await writesWhileEdited((e, i) => ({ validations: [{ name: 'max', value: String(100 + ((e + i) % 2)) }] }));
    console.log('value writes while the rules are edited:', statuses);
    expect(bad).toEqual([]);
    expect(
      Object.keys(statuses)
        .map(Number)
        .every((s) => s === 200 || s === 201 || s === 409),
    ).toBe(true);
  });

  it('leave no value pointing at a definition deleted meanwhile: with delete_all_associated_metafields none of its values stays (PostgreSQL kept some)', async () => {
    for (const [round, deleteAll] of [
      [1, true],
      [2, false],
    ] as const) {
      const key = `gone${round}`;
      const definition = await shop.api.define({ namespace: 'busy', key, type: 'single_line_text_field' });
      await shop.api.set([{ owner_resource: 'products', owner_id: shop.productIds[0], namespace: 'busy', key, value: 'first' }]);
      const writes = shop.productIds.map((ownerId, i) =>
        shop.api.set([{ owner_resource: 'products', owner_id: ownerId, namespace: 'busy', key, value: `v${i}` }]),
      );
      const removed = shop.api.admin(`/metafield_definition.json?id=${definition.id}&delete_all_associated_metafields=${deleteAll}`, {
        method: 'DELETE',
      });
      const answers = await Promise.all([...writes, removed]);
      expect(answers.filter((a) => a.status >= 500).map((a) => a.text)).toEqual([]);
      expect(answers.at(-1)!.status).toBe(200);
      const rows = await t.db.query<{ definition_id: unknown; value: string }>(
        `SELECT definition_id, value FROM metafields WHERE namespace = 'busy' AND "key" = ?`,
        [key],
      );
      // No value left points at the deleted definition. With delete_all none is left at all: a write
      // before the delete goes with it, one after it names no type and is refused (422).
      expect(rows.filter((r) => r.definition_id !== null)).toEqual([]);
      if (deleteAll) expect(rows).toEqual([]);
    }
  });

  it('delete a value once when it is deleted many times at once: one 200, the others 404', async () => {
    const product = shop.productIds[1]!;
    const created = await shop.api.create(product, { namespace: 'twice', key: 'gone', type: 'single_line_text_field', value: 'x' });
    expect(created.status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 10 }, () => shop.api.remove(product, created.body.metafield.id)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(404)]);
  });
});
