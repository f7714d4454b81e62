import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, type TestPlatform } from './harness';
import { startDefinitionsPlatform } from './metafield-definitions.fixtures';

// Operator API: metaobject definitions and metaobjects, what definitions and values reference
// (decisions §8.14, §10).

let t: TestPlatform;
const op = () => operator(t);
const createDefinition = (handle: string, body: unknown) => op().call(`/stores/${handle}/metaobject_definitions`, { body });
const createMetaobject = (handle: string, definitionId: string, body: unknown) =>
  op().call(`/stores/${handle}/metaobject_definitions/${definitionId}/metaobjects`, { body });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/;

beforeAll(async () => {
  t = await startDefinitionsPlatform();
  await op().createStore('objects', { iana_timezone: 'Asia/Shanghai' });
  await op().createStore('objects-other');
});
afterAll(() => t.close());

describe('POST /platform/v1/stores/{handle}/metaobject_definitions', () => {
  it('201s {"metaobject_definition":{id, type, name, created_at, updated_at}} in the store zone', async () => {
    const r = await createDefinition('objects', { metaobject_definition: { type: 'designer', name: 'Designer' } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      metaobject_definition: {
        id: expect.stringMatching(/^\d+$/),
        type: 'designer',
        name: 'Designer',
        admin_graphql_api_id: `gid://platform/MetaobjectDefinition/${r.body.metaobject_definition.id}`,
        created_at: expect.stringMatching(/\+08:00$/),
        updated_at: r.body.metaobject_definition.created_at,
      },
    });
  });

  it('422s a type already taken in the store; another store may use it', async () => {
    await createDefinition('objects', { metaobject_definition: { type: 'fabric', name: 'Fabric' } });
    const again = await createDefinition('objects', { metaobject_definition: { type: 'fabric', name: 'Other' } });
    expect(again.status).toBe(422);
    expect(again.body.errors).toMatch(/^type: has already been taken/);
    expect((await createDefinition('objects-other', { metaobject_definition: { type: 'fabric', name: 'Fabric' } })).status).toBe(201);
  });

  it('keeps the type unique under concurrent creates', async () => {
    const body = { metaobject_definition: { type: 'raced_type', name: 'Raced' } };
    const answers = await Promise.all(Array.from({ length: 5 }, () => createDefinition('objects', body)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 422, 422, 422, 422]);
  });

  it('422s every problem of a bad type and name at once', async () => {
    const r = await createDefinition('objects', { metaobject_definition: { type: 'a b', name: ' ' } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe("type: can only contain letters, digits, hyphens and underscores; name: can't be blank");
    const short = await createDefinition('objects', { metaobject_definition: { type: 'ab', name: 'n'.repeat(256) } });
    expect(short.body.errors).toBe('type: is too short (minimum is 3 characters); name: is too long (maximum is 255 characters)');
  });

  it("422s a body that is not wrapped in metaobject_definition, or lacks a field, in the service's words (decisions §4)", async () => {
    const cases: [unknown, string][] = [
      [{ type: 'designer', name: 'D' }, "metaobject_definition: can't be blank"],
      [{ metaobject_definition: null }, 'metaobject_definition: must be an object'],
      [{ metaobject_definition: { name: 'D' } }, "metaobject_definition.type: can't be blank"],
      [{ metaobject_definition: { type: 3, name: 'D' } }, 'metaobject_definition.type: must be a string'],
      [[], 'body: must be an object'],
    ];
    for (const [body, errors] of cases) {
      const r = await createDefinition('objects', body);
      expect([r.status, r.body.errors], JSON.stringify(body)).toEqual([422, errors]);
    }
    const metaobject = await createMetaobject('objects', '1', { metaobject: { handle: null } });
    expect([metaobject.status, metaobject.body.errors]).toEqual([422, 'metaobject.handle: must be a string']);
  });

  it('404s an unknown store and 401s without the operator token', async () => {
    expect((await createDefinition('no-such-store', { metaobject_definition: { type: 'designer', name: 'D' } })).status).toBe(404);
    const r = await call(`${t.origin}/platform/v1/stores/objects/metaobject_definitions`, {
      body: { metaobject_definition: { type: 'designer', name: 'D' } },
    });
    expect(r.status).toBe(401);
  });
});

describe('POST /platform/v1/stores/{handle}/metaobject_definitions/{id}/metaobjects', () => {
  let definitionId: string;
  beforeAll(async () => {
    const r = await createDefinition('objects', { metaobject_definition: { type: 'colour', name: 'Colour' } });
    definitionId = r.body.metaobject_definition.id;
  });

  it('201s {"metaobject":{id, definition_id, handle, ...}}', async () => {
    const r = await createMetaobject('objects', definitionId, { metaobject: { handle: 'red' } });
    expect(r.status).toBe(201);
    const m = r.body.metaobject;
    expect(m).toEqual({
      id: expect.stringMatching(/^\d+$/),
      definition_id: definitionId,
      type: 'colour',
      handle: 'red',
      admin_graphql_api_id: `gid://platform/Metaobject/${m.id}`,
      created_at: expect.stringMatching(ISO),
      updated_at: m.created_at,
    });
    const row = await t.db.prisma.metaobject.findUniqueOrThrow({ where: { id: BigInt(m.id) } });
    expect(row.definitionId.toString()).toBe(definitionId);
  });

  it('422s a handle already taken in the definition; another definition may use it', async () => {
    await createMetaobject('objects', definitionId, { metaobject: { handle: 'blue' } });
    const again = await createMetaobject('objects', definitionId, { metaobject: { handle: 'blue' } });
    expect(again.status).toBe(422);
    expect(again.body.errors).toMatch(/^handle: has already been taken/);
    const other = (await createDefinition('objects', { metaobject_definition: { type: 'mood', name: 'Mood' } })).body.metaobject_definition
      .id;
    expect((await createMetaobject('objects', other, { metaobject: { handle: 'blue' } })).status).toBe(201);
  });

  it('422s a bad handle', async () => {
    for (const handle of ['', 'has space', 'h'.repeat(256)]) {
      const r = await createMetaobject('objects', definitionId, { metaobject: { handle } });
      expect(r.status, handle.slice(0, 10)).toBe(422);
      expect(r.body.errors).toMatch(/^handle: /);
    }
    expect((await createMetaobject('objects', definitionId, { handle: 'red' })).status).toBe(422);
  });

  it("404s an unknown definition, another store's, a non-numeric id and an unknown store", async () => {
    const foreign = (await createDefinition('objects-other', { metaobject_definition: { type: 'colour', name: 'Colour' } })).body
      .metaobject_definition.id;
    for (const [handle, id] of [
      ['objects', '999999'],
      ['objects', foreign],
      ['objects', 'colour'],
      ['objects', '99999999999999999999'],
      ['nope-store', definitionId],
    ]) {
      const r = await createMetaobject(handle!, id!, { metaobject: { handle: 'green' } });
      expect(r.status, `${handle} ${id}`).toBe(404);
    }
  });
});
