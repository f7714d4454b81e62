import { describe, expect, it } from 'vitest';
import { storeWithApp } from './harness';
import { aDefinition, createMetaobjectDefinition, METAFIELD_SCOPES, rulesPlatform } from './metafield-definitions.fixtures';

// The spec's "Metafield definition" and "Limits" tables for a definition's own fields, and its
// references to metaobject definitions (decisions §8.1-§8.3, §8.14); the rules: metafield-definitions.rules.e2e.test.ts.

const rules = rulesPlatform();

describe('definition fields (spec "Metafield definition" and Limits, decisions §8.1-§8.3)', () => {
  it('accepts each owner_resource of decisions §8.1 and refuses any other', async () => {
    for (const owner of ['products', 'variants', 'collections', 'customers', 'orders', 'shop']) {
      const r = await rules.defs.create(aDefinition({ owner_resource: owner }));
      expect(r.status, owner).toBe(201);
      expect(r.body.definition.owner_resource).toBe(owner);
    }
    const r = await rules.defs.create(aDefinition({ owner_resource: 'pages' }));
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^owner_resource: is not included in the list/);
  });

  it.each([
    ['key', 'abc', true],
    ['key', 'a-B_9', true],
    ['key', 'k'.repeat(64), true],
    ['key', 'ab', false],
    ['key', 'k'.repeat(65), false],
    ['key', 'has space', false],
    ['key', 'dot.ted', false],
    ['namespace', 'abc', true],
    ['namespace', 'n'.repeat(255), true],
    ['namespace', 'my-app_1', true],
    ['namespace', 'ab', false],
    ['namespace', 'n'.repeat(256), false],
    ['namespace', 'a:b:c', false],
    ['namespace', '$app:ab', false],
    ['name', 'N', true],
    ['name', 'n'.repeat(255), true],
    ['name', '😀'.repeat(255), true],
    ['name', 'n'.repeat(256), false],
    ['name', '   ', false],
    ['description', 'd'.repeat(255), true],
    ['description', '😀'.repeat(255), true],
    ['description', 'd'.repeat(256), false],
  ])('%s %j: accepted %s', async (field, value, accepted) => {
    const r = await rules.defs.create(aDefinition({ [field]: value }));
    expect(r.status, r.text).toBe(accepted ? 201 : 422);
    if (accepted) expect(r.body.definition[field]).toBe(value);
    else expect(r.body.errors).toMatch(new RegExp(`^${field}: `));
  });

  it.each(['owner_resource', 'namespace', 'key', 'name', 'type'])('422s a definition without %s', async (field) => {
    const body = aDefinition();
    delete body[field];
    const r = await rules.defs.create(body);
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe(`${field}: can't be blank`);
  });

  it('422s an unsupported type, naming it', async () => {
    for (const type of ['string', 'list.boolean', 'list.json', 'LIST.URL']) {
      const r = await rules.defs.create(aDefinition({ type }));
      expect(r.status).toBe(422);
      expect(r.body.errors).toBe(`type: '${type}' is not a supported type`);
    }
  });

  it('takes the five access.admin values, and treats null, {} and {admin: ""} as not set', async () => {
    for (const admin of ['MERCHANT_READ_WRITE', 'MERCHANT_READ', 'PUBLIC_READ', 'PRIVATE', 'NONE']) {
      expect((await rules.defs.create(aDefinition({ access: { admin } }))).body.definition.access).toEqual({ admin });
    }
    for (const access of [null, {}, { admin: '' }, { admin: null }]) {
      expect((await rules.defs.create(aDefinition({ access }))).body.definition.access).toBeNull();
    }
    const bad = await rules.defs.create(aDefinition({ access: { admin: 'merchant_read' } }));
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatch(
      /^access\.admin: is not included in the list \(MERCHANT_READ_WRITE, MERCHANT_READ, PUBLIC_READ, PRIVATE, NONE\)/,
    );
    expect((await rules.defs.create(aDefinition({ access: 'PRIVATE' }))).status).toBe(422);
  });

  it('reports every problem at once, field first, joined with "; " (decisions §4)', async () => {
    const r = await rules.defs.create({
      owner_resource: 'pages',
      namespace: 'ab',
      key: 'a b',
      name: '',
      description: 7,
      type: 'single_line_text_field',
      validations: [
        { name: 'choices', value: '[]' },
        { name: 'nope', value: '1' },
        { name: 'choices', value: '["a"]' },
      ],
      access: { admin: 'ALL' },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors.split('; ')).toEqual([
      expect.stringMatching(/^owner_resource: is not included in the list/),
      'namespace: is too short (minimum is 3 characters)',
      'key: can only contain letters, digits, hyphens and underscores',
      "name: can't be blank",
      'description: must be a string',
      'validations[0].value: must contain at least one choice (rule choices)',
      "validations[1].name: 'nope' is not a supported rule",
      "validations[2].name: 'choices' appears more than once (each rule at most once per definition)",
      expect.stringMatching(/^access\.admin: is not included in the list/),
    ]);
  });
});

describe('references to metaobject definitions (decisions §8.14)', () => {
  it('accepts an existing metaobject definition by numeric id or global id', async () => {
    for (const value of [rules.metaobjectDefinitionId, `gid://platform/MetaobjectDefinition/${rules.metaobjectDefinitionId}`]) {
      const r = await rules.defs.create(
        aDefinition({ type: 'list.metaobject_reference', validations: [{ name: 'metaobject_definition_id', value }] }),
      );
      expect(r.status).toBe(201);
      expect(r.body.definition.validations).toEqual([{ name: 'metaobject_definition_id', value }]);
    }
  });

  it("422s an unknown metaobject definition, and another store's", async () => {
    await storeWithApp(rules.t, 'rules-other', METAFIELD_SCOPES);
    const foreign = await createMetaobjectDefinition(rules.t, 'rules-other', 'designer');
    for (const id of ['987654321', foreign]) {
      const r = await rules.defs.create(
        aDefinition({ type: 'metaobject_reference', validations: [{ name: 'metaobject_definition_id', value: id }] }),
      );
      expect(r.status).toBe(422);
      expect(r.body.errors).toBe(`validations[0].value: metaobject definition ${id} does not exist (rule metaobject_definition_id)`);
    }
  });

  it('lets a metaobject_reference definition go without the rule', async () => {
    expect((await rules.defs.create(aDefinition({ type: 'metaobject_reference' }))).status).toBe(201);
  });
});
