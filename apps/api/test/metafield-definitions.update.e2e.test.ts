import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, type TestPlatform } from './harness';
import {
  aDefinition,
  createMetaobjectDefinition,
  startDefinitionsStore,
  rechecksOf,
  type Definitions,
} from './metafield-definitions.fixtures';

let t: TestPlatform;
let defs: Definitions;

beforeAll(async () => {
  ({ t, defs } = await startDefinitionsStore('updates'));
});
afterAll(() => t.close());

/** A stored definition with a description, rules and an access, and how to address it. */
async function stored(overrides: Record<string, unknown> = {}) {
  const body = aDefinition({
    type: 'single_line_text_field',
    description: 'Original description',
    validations: [
      { name: 'min', value: '2' },
      { name: 'max', value: '20' },
    ],
    access: { admin: 'MERCHANT_READ' },
    ...overrides,
  });
  const r = await defs.create(body);
  expect(r.status, r.text).toBe(201);
  const definition = r.body.definition;
  const target = { owner_resource: definition.owner_resource, namespace: definition.namespace, key: definition.key };
  return { definition, target };
}

const rowOf = (id: string) => t.db.prisma.metafieldDefinition.findUniqueOrThrow({ where: { id: BigInt(id) } });

describe('update: PUT /metafield_definition.json (spec "Metafield definition operations" rule 3, decisions §8.5)', () => {
  it('200s the changed definition, targeted by owner_resource + namespace + key, with updated_at refreshed', async () => {
    const { definition, target } = await stored();
    await operator(t).advanceClock(90);
    const r = await defs.update({ ...target, name: 'Renamed' });
    expect(r.status).toBe(200);
    expect(r.body.definition).toEqual({ ...definition, name: 'Renamed', updated_at: expect.any(String) });
    expect(new Date(r.body.definition.updated_at).getTime() - new Date(definition.updated_at).getTime()).toBeGreaterThanOrEqual(90_000);
    expect((await defs.get(definition.id)).body.definition).toEqual(r.body.definition);
  });

  it('refreshes updated_at even when nothing else changes', async () => {
    const { definition, target } = await stored();
    await operator(t).advanceClock(5);
    const r = await defs.update(target);
    expect(r.status).toBe(200);
    expect(r.body.definition.updated_at).not.toBe(definition.updated_at);
  });

  it('moves updated_at to a later second even when the clock has not moved (nextUpdatedAt)', async () => {
    const { definition, target } = await stored();
    const first = await defs.update(target);
    const second = await defs.update({ ...target, name: 'Again' });
    expect(Date.parse(first.body.definition.updated_at)).toBeGreaterThan(Date.parse(definition.updated_at));
    expect(Date.parse(second.body.definition.updated_at)).toBeGreaterThan(Date.parse(first.body.definition.updated_at));
    expect((await defs.get(definition.id)).body.definition.updated_at).toBe(second.body.definition.updated_at);
  });

  it('gives updates at once two different, increasing times (updated_at read under the row lock; PostgreSQL in CI)', async () => {
    const { definition, target } = await stored();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => defs.update({ ...target, name: `At once ${i}` })));
    for (const r of answers) expect(r.status, r.text).toBe(200);
    const times = answers.map((r) => Date.parse(r.body.definition.updated_at as string)).sort((a, b) => a - b);
    // The clock stands still: each update moves one second past the one before it, none repeats one.
    const created = Date.parse(definition.updated_at as string);
    expect(times).toEqual(times.map((_, i) => created + (i + 1) * 1000));
    expect(Date.parse((await defs.get(definition.id)).body.definition.updated_at)).toBe(times.at(-1));
  });

  it('loses no field of updates at once: each is judged on what the one before it wrote', async () => {
    const { definition, target } = await stored();
    const answers = await Promise.all([
      defs.update({ ...target, name: 'Renamed at once' }),
      defs.update({ ...target, description: 'Described at once' }),
      defs.update({
        ...target,
        validations: [
          { name: 'min', value: '3' },
          { name: 'max', value: '30' },
        ],
      }),
      defs.update({ ...target, access: { admin: 'MERCHANT_READ_WRITE' } }),
    ]);
    for (const r of answers) expect(r.status, r.text).toBe(200);
    const after = (await defs.get(definition.id)).body.definition;
    expect(after).toMatchObject({
      name: 'Renamed at once',
      description: 'Described at once',
      validations: [
        { name: 'min', value: '3' },
        { name: 'max', value: '30' },
      ],
      access: { admin: 'MERCHANT_READ_WRITE' },
    });
    // The rules changed once (a new definition starts at revision 0).
    expect((await rowOf(definition.id)).rulesRevision).toBe(1);
  });

  it('keeps every field that is omitted', async () => {
    const { definition, target } = await stored();
    const r = await defs.update({ ...target });
    expect({ ...r.body.definition, updated_at: definition.updated_at }).toEqual(definition);
  });

  it('keeps every field that is sent as null', async () => {
    const { definition, target } = await stored();
    const r = await defs.update({ ...target, name: null, description: null, validations: null, access: null, type: null });
    expect(r.status).toBe(200);
    expect({ ...r.body.definition, updated_at: definition.updated_at }).toEqual(definition);
  });

  it('clears the description with an empty string', async () => {
    const { target } = await stored();
    const r = await defs.update({ ...target, description: '' });
    expect(r.status).toBe(200);
    expect(r.body.definition.description).toBe('');
    expect(r.body.definition.name).toBeTruthy();
    // Stored as cleared: a later read and an update that omits it keep "".
    expect((await defs.get(r.body.definition.id)).body.definition.description).toBe('');
    expect((await defs.update({ ...target, name: 'Renamed' })).body.definition.description).toBe('');
  });

  it('clears every rule with an empty validations array', async () => {
    const { target } = await stored();
    const r = await defs.update({ ...target, validations: [] });
    expect(r.body.definition.validations).toEqual([]);
  });

  it('replaces the whole rule set with a non-empty validations array', async () => {
    const { target } = await stored();
    const r = await defs.update({ ...target, validations: [{ name: 'regex', value: '^[A-Z]' }] });
    expect(r.body.definition.validations).toEqual([{ name: 'regex', value: '^[A-Z]' }]);
  });

  it('sets, keeps ({admin: null}) and clears ({admin: ""}) the access', async () => {
    const { target } = await stored();
    expect((await defs.update({ ...target, access: { admin: 'PUBLIC_READ' } })).body.definition.access).toEqual({ admin: 'PUBLIC_READ' });
    expect((await defs.update({ ...target, access: { admin: null } })).body.definition.access).toEqual({ admin: 'PUBLIC_READ' });
    expect((await defs.update({ ...target, access: { admin: '' } })).body.definition.access).toBeNull();
  });

  it('accepts the stored type sent again, and 422s a different type (decisions §8.5)', async () => {
    const { definition, target } = await stored();
    expect((await defs.update({ ...target, type: 'single_line_text_field' })).status).toBe(200);
    const r = await defs.update({ ...target, type: 'multi_line_text_field', name: 'Changed' });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^type: cannot be changed/);
    expect((await defs.get(definition.id)).body.definition.name).toBe(definition.name);
  });

  it('422s a blank name (the name is required, so "" cannot clear it)', async () => {
    const { target } = await stored();
    const r = await defs.update({ ...target, name: '' });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe("name: can't be blank");
  });

  it('422s every problem at once and changes nothing', async () => {
    const { definition, target } = await stored();
    const r = await defs.update({
      ...target,
      name: 'x'.repeat(256),
      description: 'y'.repeat(256),
      validations: [
        { name: 'choices', value: '["a"]' },
        { name: 'min', value: '' },
      ],
      access: { admin: 'EVERYONE' },
    });
    expect(r.status).toBe(422);
    const parts = r.body.errors.split('; ');
    expect(parts).toEqual(
      expect.arrayContaining([
        'name: is too long (maximum is 255 characters)',
        'description: is too long (maximum is 255 characters)',
        expect.stringMatching(/^validations\[1\]\.value: can't be blank/),
        expect.stringMatching(/^access\.admin: is not included in the list/),
      ]),
    );
    const after = (await defs.get(definition.id)).body.definition;
    expect(after).toEqual(definition);
  });

  it('applies the rules on the array to the new set: duplicates, unsupported names, min > max', async () => {
    const { target } = await stored({ type: 'number_integer', validations: [] });
    const dup = await defs.update({
      ...target,
      validations: [
        { name: 'max', value: '3' },
        { name: 'max', value: '4' },
      ],
    });
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toMatch(/validations\[1\]\.name: 'max' appears more than once/);
    const unsupported = await defs.update({ ...target, validations: [{ name: 'maximum', value: '3' }] });
    expect(unsupported.body.errors).toMatch(/'maximum' is not a supported rule/);
    const crossed = await defs.update({
      ...target,
      validations: [
        { name: 'min', value: '5' },
        { name: 'max', value: '4' },
      ],
    });
    expect(crossed.body.errors).toMatch(/min must be less than or equal to max/);
  });

  it('422s a metaobject_definition_id that names no metaobject definition of the store (decisions §8.14)', async () => {
    const mod = await createMetaobjectDefinition(t, 'updates', 'designer');
    const { target } = await stored({ type: 'metaobject_reference', validations: [{ name: 'metaobject_definition_id', value: mod }] });
    const r = await defs.update({ ...target, validations: [{ name: 'metaobject_definition_id', value: '987654321' }] });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/validations\[0\]\.value: metaobject definition 987654321 does not exist/);
    const ok = await defs.update({
      ...target,
      validations: [{ name: 'metaobject_definition_id', value: `gid://platform/MetaobjectDefinition/${mod}` }],
    });
    expect(ok.status).toBe(200);
  });

  it('422s a body without owner_resource, namespace or key, naming each', async () => {
    const r = await defs.update({ name: 'x' });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe("owner_resource: can't be blank; namespace: can't be blank; key: can't be blank");
    const typed = await defs.update({ owner_resource: 1, namespace: 'custom', key: 'abc' });
    expect(typed.body.errors).toBe('owner_resource: must be a string');
  });

  it('404s a target that does not exist', async () => {
    const { target } = await stored();
    for (const miss of [
      { ...target, key: 'nope_nope' },
      { ...target, namespace: 'elsewhere' },
      { ...target, owner_resource: 'orders' },
    ]) {
      expect((await defs.update({ ...miss, name: 'x' })).status).toBe(404);
    }
  });
});

describe('re-check after validations change (spec "Rules on the array" 7, decisions §8.12)', () => {
  it('bumps rulesRevision and writes one pending re-check row for the new revision', async () => {
    const { definition, target } = await stored();
    expect((await rowOf(definition.id)).rulesRevision).toBe(0);
    await defs.update({ ...target, validations: [{ name: 'max', value: '5' }] });
    const row = await rowOf(definition.id);
    expect(row.rulesRevision).toBe(1);
    const rechecks = await rechecksOf(t, definition.id);
    expect(rechecks.map((r) => [r.storeId, r.revision, r.status, r.cursor])).toEqual([[row.storeId, 1, 'pending', 0n]]);
    await defs.update({ ...target, validations: [] });
    expect((await rowOf(definition.id)).rulesRevision).toBe(2);
    expect((await rechecksOf(t, definition.id)).map((r) => r.revision)).toEqual([1, 2]);
  });

  it('writes none when the validations do not change', async () => {
    const { definition, target } = await stored();
    await defs.update({ ...target, name: 'New name', description: 'New description', access: { admin: 'PUBLIC_READ' } });
    await defs.update({
      ...target,
      validations: [
        { name: 'min', value: '2' },
        { name: 'max', value: '20' },
      ],
    });
    await defs.update({ ...target, validations: null });
    expect((await rowOf(definition.id)).rulesRevision).toBe(0);
    expect(await rechecksOf(t, definition.id)).toEqual([]);
  });

  it('writes none when the update fails', async () => {
    const { definition, target } = await stored();
    const r = await defs.update({ ...target, type: 'boolean', validations: [{ name: 'max', value: '3' }] });
    expect(r.status).toBe(422);
    expect((await rowOf(definition.id)).rulesRevision).toBe(0);
    expect(await rechecksOf(t, definition.id)).toEqual([]);
  });
});
