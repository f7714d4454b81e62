import { describe, expect, it } from 'vitest';
import { METAFIELD_TYPES } from './define-types';
import { ACCESS_ADMIN_VALUES, OWNER_RESOURCES, validateDefinition, type DefinitionInput } from './validate-definition';

const BASE = { owner_resource: 'products', namespace: 'custom', key: 'care_guide', name: 'Care guide', type: 'multi_line_text_field' };

function problems(input: DefinitionInput): string[] {
  const result = validateDefinition(input);
  return result.ok ? [] : result.issues.map((i) => i.message);
}
const with_ = (patch: Record<string, unknown>) => problems({ ...BASE, ...patch });

describe('validateDefinition: a valid definition', () => {
  it('is returned normalized', () => {
    const result = validateDefinition({
      ...BASE,
      description: 'How to wash it',
      validations: [{ name: 'max', value: '500' }],
      access: { admin: 'MERCHANT_READ' },
      extra: 'ignored',
    } as DefinitionInput);
    expect(result).toEqual({
      ok: true,
      value: { ...BASE, description: 'How to wash it', validations: [{ name: 'max', value: '500' }], access: { admin: 'MERCHANT_READ' } },
      references: [],
    });
  });

  it('has optional description, validations and access', () => {
    const result = validateDefinition(BASE);
    expect(result).toMatchObject({ ok: true, value: { description: null, validations: [], access: null } });
  });
});

describe('owner_resource (decisions §8.1)', () => {
  it('is one of products, variants, collections, customers, orders, shop', () => {
    expect(OWNER_RESOURCES).toEqual(['products', 'variants', 'collections', 'customers', 'orders', 'shop']);
    for (const owner of OWNER_RESOURCES) expect(with_({ owner_resource: owner }), owner).toEqual([]);
    expect(with_({ owner_resource: 'product' })).toEqual([
      'owner_resource: is not included in the list (products, variants, collections, customers, orders, shop)',
    ]);
    expect(with_({ owner_resource: undefined })).toEqual(["owner_resource: can't be blank"]);
    expect(with_({ owner_resource: 3 })).toEqual(['owner_resource: must be a string']);
  });
});

describe('namespace (decisions §8.2)', () => {
  it('is 3-255 letters, digits, - and _', () => {
    for (const ok of ['abc', 'my-app_2', 'A'.repeat(255), 'app--12--custom']) expect(with_({ namespace: ok }), ok).toEqual([]);
    expect(with_({ namespace: 'ab' })).toEqual(['namespace: is too short (minimum is 3 characters)']);
    expect(with_({ namespace: 'a'.repeat(256) })).toEqual(['namespace: is too long (maximum is 255 characters)']);
    for (const bad of ['my app', 'my.app', 'my/app', 'café', '$app', 'app:x', '$APP:abc']) {
      expect(with_({ namespace: bad }), bad).toEqual(['namespace: can only contain letters, digits, hyphens and underscores']);
    }
    expect(with_({ namespace: '' })).toEqual(["namespace: can't be blank"]);
  });

  it('may be $app: followed by such a name', () => {
    expect(with_({ namespace: '$app:reviews' })).toEqual([]);
    expect(with_({ namespace: `$app:${'a'.repeat(255)}` })).toEqual([]);
    expect(with_({ namespace: '$app:ab' })).toEqual(['namespace: is too short (minimum is 3 characters)']);
    expect(with_({ namespace: '$app:' })).toEqual(['namespace: is too short (minimum is 3 characters)']);
    expect(with_({ namespace: '$app:a b c' })).toEqual(['namespace: can only contain letters, digits, hyphens and underscores']);
    expect(validateDefinition({ ...BASE, namespace: '$app:reviews' })).toMatchObject({ ok: true, value: { namespace: '$app:reviews' } });
  });

  it('refuses what looks like an app namespace but is not its canonical spelling (issue 8 finding 6)', () => {
    for (const lookalike of [
      'App--3--x1y',
      'APP--3--abc',
      'app---3--abc',
      'app--03--abc',
      'app--3-abc',
      'app--x--abc',
      'app-3--abc',
      'app--0--abc',
    ]) {
      expect(with_({ namespace: lookalike }), lookalike).toEqual([
        'namespace: looks like an app-reserved namespace but is not spelled app--{app id}--{name}; use $app:{name}',
      ]);
    }
    // Shared namespaces that merely start with "app" stay ordinary.
    for (const ok of [
      'app',
      'apps',
      'app-settings',
      'application',
      'app_3',
      'myapp--3--x',
      'app-2024-promo',
      'app-1-x',
      'APP-3-x',
      'app-3-',
    ])
      expect(with_({ namespace: ok }), ok).toEqual([]);
  });

  it('reads the stored spelling app--{id}--x exactly as $app:x: the same rules on x (decisions §8.2)', () => {
    for (const [stored, app] of [
      ['app--1--ab', '$app:ab'],
      ['app--1--', '$app:'],
      [`app--1--${'a'.repeat(250)}`, `$app:${'a'.repeat(250)}`],
      [`app--1--${'a'.repeat(256)}`, `$app:${'a'.repeat(256)}`],
      ['app--12--a b', '$app:a b'],
      ['app--12--custom', '$app:custom'],
    ]) {
      expect(with_({ namespace: stored }), stored).toEqual(with_({ namespace: app }));
    }
    expect(with_({ namespace: 'app--1--ab' })).toEqual(['namespace: is too short (minimum is 3 characters)']);
    // 261 characters in the stored spelling, 250 in x: accepted, as `$app:` + 250 is.
    expect(with_({ namespace: `app--1--${'a'.repeat(250)}` })).toEqual([]);
    // Not the stored spelling (no app id), yet shaped like it: refused (issue 8 finding 6).
    expect(with_({ namespace: 'app--x--ab' })).toHaveLength(1);
  });
});

describe('key (spec: letters, digits, -, _; 3-64)', () => {
  it('has 3 to 64 allowed characters', () => {
    expect(with_({ key: 'abc' })).toEqual([]);
    expect(with_({ key: 'a'.repeat(64) })).toEqual([]);
    expect(with_({ key: 'ab' })).toEqual(['key: is too short (minimum is 3 characters)']);
    expect(with_({ key: 'a'.repeat(65) })).toEqual(['key: is too long (maximum is 64 characters)']);
    expect(with_({ key: 'care guide' })).toEqual(['key: can only contain letters, digits, hyphens and underscores']);
    expect(with_({ key: 'a.' })).toEqual([
      'key: is too short (minimum is 3 characters)',
      'key: can only contain letters, digits, hyphens and underscores',
    ]);
    expect(with_({ key: null })).toEqual(["key: can't be blank"]);
  });
});

describe('name (decisions §8.3: required, 1-255)', () => {
  it('is required and at most 255 characters', () => {
    expect(with_({ name: 'x' })).toEqual([]);
    expect(with_({ name: '😀'.repeat(255) })).toEqual([]);
    expect(with_({ name: 'x'.repeat(256) })).toEqual(['name: is too long (maximum is 255 characters)']);
    expect(with_({ name: '' })).toEqual(["name: can't be blank"]);
    expect(with_({ name: '   ' })).toEqual(["name: can't be blank"]);
    expect(with_({ name: undefined })).toEqual(["name: can't be blank"]);
    expect(with_({ name: ['x'] })).toEqual(['name: must be a string']);
  });
});

describe('description (decisions §8.3: optional, 0-255)', () => {
  it('is at most 255 characters', () => {
    expect(with_({ description: 'd'.repeat(255) })).toEqual([]);
    expect(with_({ description: 'd'.repeat(256) })).toEqual(['description: is too long (maximum is 255 characters)']);
    expect(with_({ description: 5 })).toEqual(['description: must be a string']);
    expect(validateDefinition({ ...BASE, description: '' })).toMatchObject({ ok: true, value: { description: '' } });
    expect(validateDefinition({ ...BASE, description: null })).toMatchObject({ ok: true, value: { description: null } });
  });
});

describe('type (decisions §8.3: required and supported)', () => {
  it('is one of the supported types', () => {
    for (const type of METAFIELD_TYPES) expect(with_({ type }), type).toEqual([]);
    expect(with_({ type: 'list.boolean' })).toEqual(["type: 'list.boolean' is not a supported type"]);
    expect(with_({ type: '' })).toEqual(["type: can't be blank"]);
    expect(with_({ type: undefined })).toEqual(["type: can't be blank"]);
  });
});

describe('validations', () => {
  it('are checked against the type', () => {
    expect(with_({ type: 'boolean', validations: [{ name: 'max', value: '5' }] })).toEqual([
      "validations[0].name: 'max' does not apply to type boolean",
    ]);
    expect(with_({ validations: [{ name: 'foo', value: 'x' }] })).toEqual(["validations[0].name: 'foo' is not a supported rule"]);
    expect(with_({ validations: 'max=5' })).toEqual(['validations: must be an array']);
  });

  it('surface the referenced metaobject definition for the caller to check (§8.14)', () => {
    const result = validateDefinition({
      ...BASE,
      type: 'metaobject_reference',
      validations: [{ name: 'metaobject_definition_id', value: '42' }],
    });
    expect(result).toMatchObject({ ok: true, references: [{ field: 'validations[0].value', kind: 'metaobject_definition', id: '42' }] });
  });
});

describe('access (spec access permission values)', () => {
  it('is null, or {admin} with one of the five values', () => {
    expect(ACCESS_ADMIN_VALUES).toEqual(['MERCHANT_READ_WRITE', 'MERCHANT_READ', 'PUBLIC_READ', 'PRIVATE', 'NONE']);
    for (const admin of ACCESS_ADMIN_VALUES) {
      expect(validateDefinition({ ...BASE, access: { admin } }), admin).toMatchObject({ ok: true, value: { access: { admin } } });
    }
    expect(validateDefinition({ ...BASE, access: null })).toMatchObject({ ok: true, value: { access: null } });
    expect(validateDefinition({ ...BASE, access: { admin: null } })).toMatchObject({ ok: true, value: { access: null } });
    expect(validateDefinition({ ...BASE, access: {} })).toMatchObject({ ok: true, value: { access: null } });
    const list = 'MERCHANT_READ_WRITE, MERCHANT_READ, PUBLIC_READ, PRIVATE, NONE';
    expect(with_({ access: { admin: 'merchant_read' } })).toEqual([`access.admin: is not included in the list (${list})`]);
    expect(with_({ access: { admin: 'PUBLIC' } })).toEqual([`access.admin: is not included in the list (${list})`]);
    expect(with_({ access: 'PRIVATE' })).toEqual(['access: must be an object with admin, or null']);
  });
});

describe('every problem at once (decisions §4)', () => {
  it('reports all fields, in order, field name first', () => {
    expect(
      problems({
        owner_resource: 'widgets',
        namespace: 'x',
        key: 'k',
        name: '',
        description: 'd'.repeat(300),
        type: 'number_integer',
        validations: [
          { name: 'min', value: '9' },
          { name: 'max', value: '3' },
          { name: 'regex', value: 'a' },
        ],
        access: { admin: 'ALL' },
      }),
    ).toEqual([
      'owner_resource: is not included in the list (products, variants, collections, customers, orders, shop)',
      'namespace: is too short (minimum is 3 characters)',
      'key: is too short (minimum is 3 characters)',
      "name: can't be blank",
      'description: is too long (maximum is 255 characters)',
      "validations[2].name: 'regex' does not apply to type number_integer",
      'validations: min must be less than or equal to max',
      'access.admin: is not included in the list (MERCHANT_READ_WRITE, MERCHANT_READ, PUBLIC_READ, PRIVATE, NONE)',
    ]);
  });

  it('refuses a body that is not an object', () => {
    expect(problems(null as unknown as DefinitionInput)).toEqual(['definition: must be an object']);
  });
});
