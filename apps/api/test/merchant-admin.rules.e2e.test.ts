import { METAFIELD_TYPES, RULE_NAMES, rulesFor } from '@platform/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startPlatform, type TestPlatform } from './harness';
import {
  adminApi,
  errorsBeside,
  expectPage,
  merchantOf,
  operatorPrivateApp,
  type Json,
  type MerchantClient,
} from './merchant-admin.helpers';
import { eventually } from './metafields.helpers';

/**
 * The merchant admin in a merchant's words (issue 47) over real HTTP: types by their names, a
 * definition's rules as fields of its type (exactly the rules the domain lets the type have,
 * decisions §8), posted as the rule set the API takes; access values explained; a value's problems
 * as sentences from the data, while the API answers its own messages as ever.
 */

let t: TestPlatform;
let m: MerchantClient;
let api: ReturnType<typeof adminApi>;
let productId: string;

/** The names of the rule fields a page offers (`rule.min`, `rule.choices.0` -> choices, `rule.min.unit` -> min). */
function ruleFieldsOn(page: string): string[] {
  const names = new Set<string>();
  for (const [, found] of page.matchAll(/name="rule\.([^"]+)"/g)) {
    const name = found!;
    const rule = RULE_NAMES.find((r) => name === r || (name.startsWith(`${r}.`) && !RULE_NAMES.includes(name as never)));
    names.add(rule ?? name);
  }
  return [...names].sort();
}

const definitionOf = async (namespace: string, key: string): Promise<Json> =>
  (await api(`/metafield_definitions.json?namespace=${namespace}`)).body.metafield_definitions.find((d: Json) => d.key === key);

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000', PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '50' });
  await operator(t).createStore('shop', { name: 'Corner Shop' });
  const app = await operatorPrivateApp(t, 'shop', 'Catalog Helper', [
    'read_products',
    'write_products',
    'read_metafields',
    'write_metafields',
  ]);
  api = adminApi(t, app.token);
  productId = (await operator(t).createProducts('shop', [{ title: 'Desk lamp' }]))[0]!;
  m = await merchantOf(t, 'shop');
}, 120_000);
afterAll(async () => t?.close());

describe('Create definition: the type first, by its name, then only its rules', () => {
  it('offers every type by its name, grouped, and no API name in the choice', async () => {
    const page = await m.get('/admin/metafield_definitions/new?owner_resource=products');
    expectPage(page, 200, /Create definition/);
    for (const [type, words] of [
      ['single_line_text_field', 'Single line text'],
      ['number_integer', 'Integer'],
      ['date_time', 'Date and time'],
      ['list.url', 'List of URLs'],
    ]) {
      expect(page.text).toContain(`<option value="${type}">${words}</option>`);
    }
    expect([...page.text.matchAll(/<option value="/g)].length).toBe(METAFIELD_TYPES.length);
    expect(page.text).not.toMatch(/name="rule\./);
  });

  it('offers, for every type, a field for exactly each rule the domain allows it (decisions §8), each with a one-line help', async () => {
    for (const type of METAFIELD_TYPES) {
      const page = await m.get(`/admin/metafield_definitions/new?owner_resource=products&type=${type}`);
      expectPage(page, 200);
      expect(ruleFieldsOn(page.text), type).toEqual([...rulesFor(type)].sort());
      // The type in words, its API name small beside it (for app developers).
      expect(page.text, type).toMatch(new RegExp(` <code class="api-name">${type.replace('.', '\\.')}</code>`));
      for (const rule of rulesFor(type)) expect(page.text, `${type} ${rule}`).toContain(`id="rule.${rule}-hint"`);
    }
    const regex = await m.get('/admin/metafield_definitions/new?owner_resource=products&type=single_line_text_field');
    // The regular expression is under "Advanced", folded while empty.
    expect(regex.text).toMatch(/<details class="advanced"><summary>Advanced<\/summary>[\s\S]*name="rule\.regex"[\s\S]*<\/details>/);
  });

  it('explains every access value where it is chosen, with its API name small beside it', async () => {
    const page = await m.get('/admin/metafield_definitions/new?owner_resource=products&type=boolean');
    for (const [value, label] of [
      ['NONE', 'Apps can read and write'],
      ['PUBLIC_READ', 'Apps can read'],
      ['MERCHANT_READ_WRITE', 'Apps cannot see it'],
    ]) {
      expect(page.text).toMatch(
        new RegExp(`value="${value}"[^>]*><span>${label} <code class="api-name">${value}</code><span class="hint">[A-Z][^<]+\\.</span>`),
      );
    }
    expect(page.text).toContain('True or false values take no rules.');
  });
});

describe('the rule fields post the rule set the API takes; the domain decides', () => {
  it('a list of weights: item counts and a measure with its unit; read back into the same fields to edit', async () => {
    const r = await m.post('/admin/metafield_definitions', {
      owner_resource: 'products',
      type: 'list.weight',
      name: 'Parcel weights',
      namespace: 'ship',
      key: 'parcels',
      access: 'NONE',
      'rule.list.max': '3',
      'rule.min': '0.5',
      'rule.min.unit': 'kg',
      'rule.max': '',
      'rule.max.unit': 'g',
    });
    expect(r.status, r.text).toBe(303);
    const definition = await definitionOf('ship', 'parcels');
    expect(definition.validations).toEqual([
      { name: 'list.max', value: '3' },
      { name: 'min', value: '{"value":0.5,"unit":"kg"}' },
    ]);
    const edit = await m.get(`/admin/metafield_definitions/${definition.id}`);
    expect(edit.text).toContain('id="rule.list.max" name="rule.list.max" type="text" value="3"');
    expect(edit.text).toContain('id="rule.min" name="rule.min" type="text" inputmode="decimal" value="0.5"');
    expect(edit.text).toContain('<option value="kg" selected>kg</option>');
    const list = await m.get('/admin/metafield_definitions?owner_resource=products');
    expect(list.text).toContain('<li>Minimum weight: 0.5 kg</li>');
    expect(list.text).toContain('List of weights <code class="api-name">list.weight</code>');
  });

  it('choices as rows (empty rows left out), file types as checkboxes, a date as a date', async () => {
    const base = { owner_resource: 'products', namespace: 'look', access: 'NONE' };
    const created = await Promise.all([
      m.post('/admin/metafield_definitions', {
        ...base,
        type: 'single_line_text_field',
        name: 'Colour',
        key: 'colour',
        'rule.choices.0': 'red',
        'rule.choices.1': '',
        'rule.choices.2': 'green',
        'rule.regex': '^[a-z]+$',
      }),
      m.post('/admin/metafield_definitions', {
        ...base,
        type: 'list.file_reference',
        name: 'Photos',
        key: 'photos',
        'rule.file_type_options.Image': 'on',
      }),
      m.post('/admin/metafield_definitions', { ...base, type: 'date', name: 'Launch', key: 'launch', 'rule.min': '2026-01-01' }),
    ]);
    for (const r of created) expect(r.status, r.text).toBe(303);
    expect((await definitionOf('look', 'colour')).validations).toEqual([
      { name: 'choices', value: '["red","green"]' },
      { name: 'regex', value: '^[a-z]+$' },
    ]);
    expect((await definitionOf('look', 'photos')).validations).toEqual([{ name: 'file_type_options', value: '["Image"]' }]);
    expect((await definitionOf('look', 'launch')).validations).toEqual([{ name: 'min', value: '2026-01-01' }]);
    const colour = await m.get(`/admin/metafield_definitions/${(await definitionOf('look', 'colour')).id}`);
    expect(colour.text).toContain('name="rule.choices.1" type="text" value="green"');
    // A rule set there opens "Advanced".
    expect(colour.text).toContain('<details class="advanced" open>');
    const photos = await m.get(`/admin/metafield_definitions/${(await definitionOf('look', 'photos')).id}`);
    expect(photos.text).toContain('name="rule.file_type_options.Image" value="on" checked');
    // Emptying every rule field clears the rules (spec: an empty validations array clears them).
    const cleared = await m.post(`/admin/metafield_definitions/${(await definitionOf('look', 'launch')).id}`, {
      name: 'Launch',
      access: 'NONE',
    });
    expect(cleared.status, cleared.text).toBe(303);
    expect((await definitionOf('look', 'launch')).validations).toEqual([]);
  });
});

describe("a value's problems, as sentences of its type (issue 47), and the API's messages unchanged", () => {
  it('says each broken rule in words beside its field, naming the item of a list', async () => {
    const base = { owner_resource: 'products', namespace: 'sent', access: 'NONE' };
    const definitions: Record<string, string>[] = [
      { type: 'number_integer', name: 'Stock floor', key: 'floor', 'rule.min': '10' },
      {
        type: 'list.single_line_text_field',
        name: 'Sizes',
        key: 'sizes',
        'rule.choices.0': 'S',
        'rule.choices.1': 'M',
        'rule.list.max': '2',
      },
      { type: 'number_decimal', name: 'Ratio', key: 'ratio', 'rule.max_precision': '1' },
      { type: 'date', name: 'Ends', key: 'ends', 'rule.max': '2026-12-31' },
    ];
    for (const extra of definitions) {
      const r = await m.post('/admin/metafield_definitions', { ...base, ...extra });
      expect(r.status, r.text).toBe(303);
    }
    const field = async (key: string) => `d${(await definitionOf('sent', key)).id}`;
    const [floor, sizes, ratio, ends] = await Promise.all(['floor', 'sizes', 'ratio', 'ends'].map(field));
    const refused = await m.post(`/admin/products/${productId}/metafields`, {
      [floor!]: '3',
      [`${sizes}.0`]: 'S',
      [`${sizes}.1`]: 'XL',
      [`${sizes}.2`]: 'M',
      [ratio!]: '0.25',
      [ends!]: '2027-01-05',
    });
    expectPage(refused, 422, /Nothing was saved/);
    expect(errorsBeside(refused, floor!)).toBe('Must be at least 10.');
    expect(errorsBeside(refused, sizes!)).toBe('Must have at most 2 items. Item 2: Must be one of the allowed choices.');
    expect(errorsBeside(refused, ratio!)).toBe('Must have at most 1 decimal place.');
    expect(errorsBeside(refused, ends!)).toBe('Must be on or before 2026-12-31.');
    // A problem of the type's basic check: the API's phrase as a sentence, without its field.
    const malformed = await m.post(`/admin/products/${productId}/metafields`, { [floor!]: 'ten' });
    expect(errorsBeside(malformed, floor!)).toMatch(/^Must be an integer .*\.$/);

    // The Admin API still answers its own message for the same value.
    const viaApi = await api(`/products/${productId}/metafields.json`, {
      body: { metafield: { namespace: 'sent', key: 'floor', value: '3' } },
    });
    expect(viaApi.status).toBe(422);
    expect(viaApi.body.errors).toBe('value: has a minimum of 10 (rule min)');
  });

  it('words the reasons of a value marked invalid by the re-check the same way', async () => {
    const r = await m.post('/admin/metafield_definitions', {
      owner_resource: 'products',
      namespace: 'later',
      key: 'tagline',
      name: 'Tagline',
      type: 'single_line_text_field',
      access: 'NONE',
    });
    expect(r.status, r.text).toBe(303);
    const id = (await definitionOf('later', 'tagline')).id;
    expect((await m.post(`/admin/products/${productId}/metafields`, { [`d${id}`]: 'Bright and warm' })).status).toBe(303);
    expect((await m.post(`/admin/metafield_definitions/${id}`, { name: 'Tagline', access: 'NONE', 'rule.min': '20' })).status).toBe(303);
    const list = await eventually(
      async () => {
        const page = await m.get('/admin/metafields?valid=false');
        return page.text.includes('Must be at least 20 characters.') ? page : undefined;
      },
      15_000,
      'the re-check to flag the value',
    );
    expect(list.text).not.toContain('(rule min)');
    // The operator API keeps the re-check's reasons as the API words them.
    const reasons = await operator(t).call('/stores/shop/metafields?valid=false');
    expect(JSON.stringify(reasons.body)).toContain('value: has a minimum length of 20 (rule min)');
    expect((await m.get(`/admin/products/${productId}`)).text).toContain('<li>Must be at least 20 characters.</li>');
  });
});
