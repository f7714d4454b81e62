import { createDb } from '@platform/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecheckRepository } from '../src/metafields/recheck.repository';
import { operator, startPlatform, type TestPlatform } from './harness';
import { eventually, persistentDatabase, PLATFORM_ENV, storeValues, storeWithProducts, workerOf, type Api } from './metafields.helpers';

// decisions §8.12: the re-check jobs themselves. Polling is off here (interval 0) and passes are run
// by hand, so claims, leases, batches and restarts can be observed step by step.

const MANUAL = { PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '0', PLATFORM_METAFIELD_RECHECK_BATCH_SIZE: '3' };

/** A store with `count` products each holding a number_integer value 1..count under a max-100 definition. */
async function seed(t: TestPlatform, handle: string, count: number) {
  const s = await storeWithProducts(t, handle, count);
  const def = await s.api.define({ namespace: 'jobs', key: 'qty', type: 'number_integer', validations: [{ name: 'max', value: '100' }] });
  const written = await s.api.set(
    s.productIds.map((p, i) => ({ owner_resource: 'products', owner_id: p, namespace: 'jobs', key: 'qty', value: String(i + 1) })),
  );
  expect(written.status).toBe(200);
  return { ...s, definitionId: BigInt(def.id), valueIds: written.body.metafields.map((m: { id: string }) => BigInt(m.id)) as bigint[] };
}

const tighten = (api: Api, max: string) => api.redefine({ namespace: 'jobs', key: 'qty', validations: [{ name: 'max', value: max }] });

describe('claims and supersession (manual passes)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startPlatform({ ...PLATFORM_ENV, ...MANUAL });
  });
  afterAll(async () => t?.close());

  const jobsOf = (definitionId: bigint) => t.db.prisma.metafieldRecheck.findMany({ where: { definitionId }, orderBy: { id: 'asc' } });
  const valuesOf = (definitionId: bigint) => t.db.prisma.metafield.findMany({ where: { definitionId }, orderBy: { id: 'asc' } });

  it('the definition update never waits for the re-check: it answers with the job still pending', async () => {
    const s = await seed(t, 'jobs-async', 4);
    await tighten(s.api, '2');
    const [job] = (await jobsOf(s.definitionId)).filter((j) => j.status === 'pending');
    expect(job).toBeDefined();
    expect((await valuesOf(s.definitionId)).every((v) => v.valid)).toBe(true);
    expect(await workerOf(t).runOnce()).toBe('done');
    expect((await valuesOf(s.definitionId)).map((v) => v.valid)).toEqual([true, true, false, false]);
    expect(await workerOf(t).runOnce()).toBe('idle');
  });

  it('works in batches, moving the cursor with each batch, and records the revision checked against', async () => {
    const s = await seed(t, 'jobs-batches', 7);
    await tighten(s.api, '5');
    const definition = await t.db.prisma.metafieldDefinition.findUniqueOrThrow({ where: { id: s.definitionId } });
    expect(await workerOf(t).runOnce({ maxBatches: 1 })).toBe('paused');
    let [job] = (await jobsOf(s.definitionId)).filter((j) => j.revision === definition.rulesRevision);
    expect(job).toMatchObject({ status: 'pending', cursor: s.valueIds[2], leaseUntil: null });
    expect((await valuesOf(s.definitionId)).map((v) => v.checkedRevision === definition.rulesRevision)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(await workerOf(t).runOnce()).toBe('done');
    [job] = (await jobsOf(s.definitionId)).filter((j) => j.revision === definition.rulesRevision);
    expect(job).toMatchObject({ status: 'done', leaseUntil: null });
    const values = await valuesOf(s.definitionId);
    expect(values.map((v) => v.valid)).toEqual([true, true, true, true, true, false, false]);
    expect(JSON.parse(values[6]!.invalidReasons)).toEqual(['value: has a maximum of 5 (rule max)']);
  });

  it('a newer revision supersedes older pending jobs of the same definition', async () => {
    const s = await seed(t, 'jobs-supersede', 3);
    await tighten(s.api, '1');
    await tighten(s.api, '2');
    const pending = (await jobsOf(s.definitionId)).filter((j) => j.status === 'pending');
    expect(pending.length).toBeGreaterThanOrEqual(2);
    await workerOf(t).drain();
    const jobs = await jobsOf(s.definitionId);
    expect(jobs.every((j) => j.status === 'done')).toBe(true);
    const newest = Math.max(...jobs.map((j) => j.revision));
    const values = await valuesOf(s.definitionId);
    expect(values.every((v) => v.checkedRevision === newest)).toBe(true);
    expect(values.map((v) => v.valid)).toEqual([true, true, false]);
    expect(JSON.parse(values[2]!.invalidReasons)).toEqual(['value: has a maximum of 2 (rule max)']);
  });

  it('a claim held by another worker is left alone until its lease expires in real time, then taken over', async () => {
    const s = await seed(t, 'jobs-lease', 2);
    await tighten(s.api, '1');
    const [job] = (await jobsOf(s.definitionId)).filter((j) => j.status === 'pending');
    // Another worker holds it for 3 s of real time: leases are about live processes, not the service clock.
    const heldUntil = Date.now() + 3000;
    await t.db.prisma.metafieldRecheck.update({ where: { id: job!.id }, data: { leaseUntil: new Date(heldUntil) } });
    expect(await workerOf(t).runOnce()).toBe('idle');
    // Moving the service clock (decisions §10) expires nothing: the holder is still alive.
    await operator(t).advanceClock(3600);
    expect(await workerOf(t).runOnce()).toBe('idle');
    expect((await valuesOf(s.definitionId)).map((v) => v.valid)).toEqual([true, true]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, heldUntil - Date.now()) + 50));
    expect(await workerOf(t).runOnce()).toBe('done');
    expect((await valuesOf(s.definitionId)).map((v) => v.valid)).toEqual([true, false]);
  });

  it('a lease further ahead than any granted (a holder whose clock was wrong) is taken over', async () => {
    const s = await seed(t, 'jobs-clock', 2);
    await tighten(s.api, '1');
    const [job] = (await jobsOf(s.definitionId)).filter((j) => j.status === 'pending');
    await t.db.prisma.metafieldRecheck.update({ where: { id: job!.id }, data: { leaseUntil: new Date(Date.now() + 24 * 3600_000) } });
    expect(await workerOf(t).runOnce()).toBe('done');
  });

  it('a worker whose claim was taken over writes nothing more (fenced on its lease)', async () => {
    const s = await seed(t, 'jobs-fence', 2);
    await tighten(s.api, '1');
    const [job] = (await jobsOf(s.definitionId)).filter((j) => j.status === 'pending');
    const repository = t.platform.app.get(RecheckRepository);
    const now = new Date();
    const claimed = await repository.claim(now, 1000);
    expect(claimed?.job.id).toBe(job!.id);
    const takenOver = await repository.claim(new Date(now.getTime() + 2000), 1000);
    expect(takenOver?.job.id).toBe(job!.id);
    const verdict = { id: s.valueIds[0]!, type: 'number_integer', value: '1', valid: false, reasons: ['stale'] };
    await expect(repository.commitBatch(job!.id, claimed!.lease, new Date(), s.valueIds[0]!, 99, [verdict])).rejects.toThrow(
      /no longer ours/,
    );
    expect(await repository.finish(job!.id, claimed!.lease)).toBe(false);
    const values = await valuesOf(s.definitionId);
    expect(values[0]).toMatchObject({ valid: true, invalidReasons: '[]' });
    expect((await jobsOf(s.definitionId)).find((j) => j.id === job!.id)).toMatchObject({ status: 'pending', cursor: 0n });
    await repository.release(job!.id, takenOver!.lease);
    await workerOf(t).drain();
  });

  it('decisions §8.1, §8.9: a definition of another owner_resource adopts, judges and deletes no product value', async () => {
    const s = await storeWithProducts(t, 'jobs-cross', 1);
    const written = await s.api.set([
      {
        owner_resource: 'products',
        owner_id: s.productIds[0],
        namespace: 'cross',
        key: 'vkey',
        type: 'single_line_text_field',
        value: 'a product value',
      },
    ]);
    expect(written.status).toBe(200);
    const id = BigInt(written.body.metafields[0].id);
    const stored = () => t.db.prisma.metafield.findUniqueOrThrow({ where: { id } });
    const variants = { owner_resource: 'variants', namespace: 'cross', key: 'vkey' };
    const tighten = async (max: string) => {
      const r = await s.admin('/metafield_definition.json', {
        method: 'PUT',
        body: { definition: { ...variants, validations: [{ name: 'max', value: max }] } },
      });
      expect(r.status).toBe(200);
    };
    const created = await s.admin('/metafield_definition.json', {
      method: 'POST',
      body: { definition: { ...variants, name: 'Variant key', type: 'single_line_text_field' } },
    });
    expect(created.status).toBe(201);
    const variantsId = BigInt(created.body.definition.id);
    await tighten('1');
    await workerOf(t).drain();
    // Not adopted (nor judged) by the variants definition of the same namespace and key.
    expect(await stored()).toMatchObject({ definitionId: null, valid: true, invalidReasons: '[]' });

    // Old data: the value linked to the variants definition by mistake (never written so now).
    await t.db.prisma.$executeRaw`UPDATE metafields SET definition_id = ${variantsId} WHERE id = ${id}`;
    const checkedBefore = (await stored()).checkedRevision;
    await tighten('2');
    await workerOf(t).drain();
    // Not judged: its 15 characters would break max 2.
    expect(await stored()).toMatchObject({ definitionId: variantsId, valid: true, invalidReasons: '[]', checkedRevision: checkedBefore });
    const invalid = (await storeValues(t, 'jobs-cross', '?valid=false')).body.metafields as { id: string }[];
    expect(invalid).toEqual([]);

    // Deleting the variants definition with its values releases the product value, never deletes it.
    const removed = await s.admin(`/metafield_definition.json?id=${variantsId}&delete_all_associated_metafields=true`, {
      method: 'DELETE',
    });
    expect(removed.status).toBe(200);
    expect(await stored()).toMatchObject({ definitionId: null, value: 'a product value' });
    expect((await s.api.get(s.productIds[0]!, id.toString())).body.metafield).toMatchObject({ value: 'a product value' });
    // The product definition of the same namespace and key is the one that adopts it.
    const product = await s.api.define({ namespace: 'cross', key: 'vkey', type: 'single_line_text_field' });
    expect((await stored()).definitionId).toBe(BigInt(product.id));
  });

  it('a job of a deleted definition just ends', async () => {
    const s = await seed(t, 'jobs-deleted', 2);
    await tighten(s.api, '1');
    await t.db.prisma.metafieldRecheck.create({
      data: { storeId: BigInt(s.store.id), definitionId: 987654321n, revision: 1, status: 'pending', updatedAt: new Date() },
    });
    await workerOf(t).drain();
    expect(await t.db.prisma.metafieldRecheck.count({ where: { status: 'pending' } })).toBe(0);
  });
});

describe("a value's updated_at moves only when the value is written", () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startPlatform({ ...PLATFORM_ENV, ...MANUAL });
  });
  afterAll(async () => t?.close());

  it('adopting it into a new definition, re-checking it and deleting its definition leave updated_at alone', async () => {
    const s = await storeWithProducts(t, 'values-untouched', 1);
    const product = s.productIds[0]!;
    const written = await s.api.create(product, {
      namespace: 'still',
      key: 'orphan',
      type: 'single_line_text_field',
      value: 'longer than five',
    });
    expect(written.status).toBe(201);
    const { id, updated_at: writtenAt } = written.body.metafield as { id: string; updated_at: string };
    const updatedAt = async () => (await s.api.get(product, id)).body.metafield.updated_at as string;

    await operator(t).advanceClock(60);
    const def = await s.api.define({
      namespace: 'still',
      key: 'orphan',
      type: 'single_line_text_field',
      validations: [{ name: 'max', value: '5' }],
    });
    expect((await t.db.prisma.metafield.findUniqueOrThrow({ where: { id: BigInt(id) } })).definitionId).toBe(BigInt(def.id));
    expect(await updatedAt()).toBe(writtenAt);

    await operator(t).advanceClock(60);
    await workerOf(t).drain();
    expect((await storeValues(t, 'values-untouched', '?valid=false')).body.metafields.map((m: { id: string }) => m.id)).toEqual([id]);
    expect(await updatedAt()).toBe(writtenAt);

    await operator(t).advanceClock(60);
    expect((await s.admin(`/metafield_definition.json?id=${def.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await t.db.prisma.metafield.findUniqueOrThrow({ where: { id: BigInt(id) } })).toMatchObject({ definitionId: null, valid: true });
    expect(await updatedAt()).toBe(writtenAt);
  });

  it('a value rewritten with the same text while the re-check judged it keeps the time of that write', async () => {
    const s = await storeWithProducts(t, 'values-rewritten', 1);
    const product = s.productIds[0]!;
    const def = await s.api.define({ namespace: 'still', key: 'same', type: 'single_line_text_field' });
    const written = await s.api.create(product, { namespace: 'still', key: 'same', type: 'single_line_text_field', value: 'abc' });
    expect(written.status).toBe(201);
    const { id, updated_at: writtenAt } = written.body.metafield as { id: string; updated_at: string };
    await s.api.redefine({ namespace: 'still', key: 'same', validations: [{ name: 'max', value: '5' }] });
    const { rulesRevision } = await t.db.prisma.metafieldDefinition.findUniqueOrThrow({ where: { id: BigInt(def.id) } });

    // A worker claims the job and reads the batch...
    const repository = t.platform.app.get(RecheckRepository);
    const claimed = await repository.claim(new Date(), 60_000);
    expect(claimed?.job.definitionId).toBe(BigInt(def.id));
    const rows = await repository.batch({ id: BigInt(def.id), ownerResource: 'products' }, 0n, 10);
    expect(rows.map((r) => r.id)).toEqual([BigInt(id)]);
    // ...the app writes the same text again, later...
    await operator(t).advanceClock(60);
    const rewritten = await s.api.update(product, id, { value: 'abc' });
    expect(rewritten.status).toBe(200);
    const rewrittenAt = rewritten.body.metafield.updated_at as string;
    expect(rewrittenAt).not.toBe(writtenAt);
    // ...and the worker commits its verdict: written (same type and text), with the time left alone.
    const next = new Date(Date.now() + 60_000);
    const verdicts = rows.map((r) => ({ ...r, valid: false, reasons: ['judged by the re-check'] }));
    await repository.commitBatch(claimed!.job.id, claimed!.lease, next, BigInt(id), rulesRevision, verdicts);
    expect(await t.db.prisma.metafield.findUniqueOrThrow({ where: { id: BigInt(id) } })).toMatchObject({
      invalidReasons: '["judged by the re-check"]',
    });
    expect((await s.api.get(product, id)).body.metafield.updated_at).toBe(rewrittenAt);
    await repository.release(claimed!.job.id, next);
    await workerOf(t).drain();
  });
});

describe('a batch written in one statement keeps the fence (issue 17)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startPlatform({ ...PLATFORM_ENV, ...MANUAL });
  });
  afterAll(async () => t?.close());

  it('values rewritten or deleted while the batch was judged keep what their writer gave them; the rest take the verdict', async () => {
    const s = await seed(t, 'jobs-fence', 5);
    await tighten(s.api, '2');
    const { rulesRevision } = await t.db.prisma.metafieldDefinition.findUniqueOrThrow({ where: { id: s.definitionId } });
    const repository = t.platform.app.get(RecheckRepository);
    const claimed = await repository.claim(new Date(), 60_000);
    const rows = await repository.batch({ id: s.definitionId, ownerResource: 'products' }, 0n, 10);
    expect(rows.map((r) => r.id)).toEqual(s.valueIds);
    // While the worker judges, value 4 is rewritten (valid under the new rules), value 5 deleted.
    const [, , , fourth, fifth] = s.valueIds as [bigint, bigint, bigint, bigint, bigint];
    expect((await s.api.update(s.productIds[3]!, fourth.toString(), { value: '1' })).status).toBe(200);
    expect((await s.api.remove(s.productIds[4]!, fifth.toString())).status).toBe(200);
    const stale = rows.map((r) => ({ ...r, valid: false, reasons: ['stale verdict'] }));
    const next = new Date(Date.now() + 60_000);
    await repository.commitBatch(claimed!.job.id, claimed!.lease, next, fifth, rulesRevision, stale);
    const values = await t.db.prisma.metafield.findMany({ where: { definitionId: s.definitionId }, orderBy: { id: 'asc' } });
    expect(values.map((v) => [v.value, v.valid, v.invalidReasons])).toEqual([
      ['1', false, '["stale verdict"]'],
      ['2', false, '["stale verdict"]'],
      ['3', false, '["stale verdict"]'],
      ['1', true, '[]'],
    ]);
    expect(values[3]!.checkedRevision).toBe(rulesRevision);
    await repository.release(claimed!.job.id, next);
  });
});

describe('restart and shutdown (decisions §8.12: the job is in the database)', () => {
  it('a new process resumes from the cursor the last one wrote, and finishes the job', async () => {
    const database = await persistentDatabase();
    try {
      const first = await database.start(MANUAL);
      const s = await seed(first, 'jobs-restart', 10);
      await tighten(s.api, '4');
      expect(await workerOf(first).runOnce({ maxBatches: 2 })).toBe('paused');
      const [job] = await first.db.prisma.metafieldRecheck.findMany({ where: { definitionId: s.definitionId, status: 'pending' } });
      expect(job).toMatchObject({ cursor: s.valueIds[5], leaseUntil: null });
      // Marked so a restart from the beginning would show: value 6 (checked, invalid) is reset by hand.
      await first.db.prisma.metafield.update({ where: { id: s.valueIds[5]! }, data: { valid: true, invalidReasons: '[]' } });
      await first.close();

      const second = await database.start({ PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '50', PLATFORM_METAFIELD_RECHECK_BATCH_SIZE: '3' });
      try {
        const finished = await eventually(
          async () => {
            const row = await second.db.prisma.metafieldRecheck.findUniqueOrThrow({ where: { id: job!.id } });
            return row.status === 'done' ? row : undefined;
          },
          15_000,
          'the job to finish after the restart',
        );
        expect(finished.cursor).toBe(s.valueIds[9]);
        const invalid = (await storeValues(second, 'jobs-restart', '?valid=false')).body.metafields.map((m: { value: string }) => m.value);
        expect(invalid).toEqual(['5', '7', '8', '9', '10']);
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('closing the app stops the worker after its batch and gives its claim back', async () => {
    const database = await persistentDatabase();
    try {
      const platform = await database.start({ ...MANUAL, PLATFORM_METAFIELD_RECHECK_BATCH_SIZE: '1' });
      const s = await seed(platform, 'jobs-shutdown', 6);
      await tighten(s.api, '1');
      const worker = workerOf(platform);
      const pass = worker.runOnce();
      await platform.close();
      expect(['paused', 'done']).toContain(await pass);
      expect(await worker.runOnce()).toBe('idle');

      const db = createDb(database.url);
      try {
        const [job] = await db.prisma.metafieldRecheck.findMany({
          where: { definitionId: s.definitionId },
          orderBy: { id: 'desc' },
          take: 1,
        });
        expect(job!.leaseUntil).toBeNull();
        const revision = job!.revision;
        const values = await db.prisma.metafield.findMany({ where: { definitionId: s.definitionId }, orderBy: { id: 'asc' } });
        // Exactly the values up to the cursor were judged: nothing half-written.
        for (const v of values) expect(v.checkedRevision === revision, String(v.id)).toBe(v.id <= job!.cursor);
        if (job!.status === 'pending') expect(job!.cursor).toBeLessThan(s.valueIds[5]!);
      } finally {
        await db.close();
      }
    } finally {
      await database.drop();
    }
  });
});
