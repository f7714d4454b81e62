import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';
import { adminAt, apiOf, metaobjects, PLATFORM_ENV, storeWithProducts, type Api } from './metafields.helpers';

// decisions §8.8, §8.9, §8.13, §8.14 and the spec's "Validation rule object" rules 4-6: a write with
// a definition runs both validation levels; without one, the basic check alone.

const HANDLE = 'values-rules';
let t: TestPlatform;
let api: Api;
let product: string;
let token: string;
let counter = 0;

beforeAll(async () => {
  t = await startPlatform(PLATFORM_ENV);
  const s = await storeWithProducts(t, HANDLE, 1);
  api = s.api;
  token = s.token;
  product = s.productIds[0]!;
});
afterAll(async () => t?.close());

/** A definition with a fresh key; returns a writer of values under it. */
async function defined(type: string, validations: [string, string][] = []) {
  counter += 1;
  const key = `rule_${counter}`;
  await api.define({ namespace: 'rules', key, type, validations: validations.map(([name, value]) => ({ name, value })) });
  return (value: string, extra: Record<string, unknown> = {}) => api.create(product, { namespace: 'rules', key, value, ...extra });
}

async function expectAccepted(write: Promise<{ status: number; text: string }>) {
  const r = await write;
  expect([200, 201], r.text).toContain(r.status);
}

async function expectRefused(write: Promise<{ status: number; body: { errors: string } }>, errors: string | RegExp) {
  const r = await write;
  expect(r.status).toBe(422);
  if (typeof errors === 'string') expect(r.body.errors).toBe(errors);
  else expect(r.body.errors).toMatch(errors);
}

describe('two levels (spec rule 6, decisions §8.9)', () => {
  it("takes the definition's type when none is sent; another type is 422", async () => {
    const write = await defined('number_integer');
    const r = await write('7');
    expect(r.status).toBe(201);
    expect(r.body.metafield.type).toBe('number_integer');
    await expectAccepted(write('8', { type: 'number_integer' }));
    await expectRefused(write('8', { type: 'single_line_text_field' }), 'type: must be number_integer, the type of its definition');
  });

  it('the basic check runs first: a value of the wrong format never reaches the rules', async () => {
    const write = await defined('number_integer', [['max', '10']]);
    await expectRefused(write('ten'), 'value: must be an integer (digits with an optional leading -, no leading zeros)');
    await expectRefused(write('11'), 'value: has a maximum of 10 (rule max)');
    await expectAccepted(write('10'));
  });

  it('rules are not sent with the value: a validations field in the body is ignored (spec, What the service does 8)', async () => {
    const write = await defined('number_integer', [['max', '10']]);
    await expectRefused(write('11', { validations: [{ name: 'max', value: '100' }] }), 'value: has a maximum of 10 (rule max)');
  });
});

describe('text (decisions §8.11, §8.13)', () => {
  it('regex searches the value, choices compare exactly, several problems are joined with "; "', async () => {
    const write = await defined('single_line_text_field', [
      ['regex', '^[A-Z]'],
      ['choices', '["Red","Green","blue"]'],
    ]);
    await expectAccepted(write('Red'));
    await expectRefused(write('Purple'), 'value: does not exist in provided choices (rule choices)');
    await expectRefused(
      write('blue-ish'),
      'value: does not match the regular expression (rule regex); value: does not exist in provided choices (rule choices)',
    );
    await expectRefused(write('Red\nGreen'), 'value: must be a single line (no line breaks)');
    const search = await defined('single_line_text_field', [['regex', '[0-9]']]);
    await expectAccepted(search('abc1def'));
    await expectRefused(search('abcdef'), 'value: does not match the regular expression (rule regex)');
  });

  it('min and max count code points', async () => {
    const write = await defined('multi_line_text_field', [
      ['min', '2'],
      ['max', '3'],
    ]);
    await expectAccepted(write('😀😀😀'));
    await expectRefused(write('abcd'), 'value: has a maximum length of 3 (rule max)');
    await expectRefused(write('a'), 'value: has a minimum length of 2 (rule min)');
  });
});

describe('number_decimal (decisions §8.8, §8.13)', () => {
  it('inclusive bounds, max_precision rejects, never rounds', async () => {
    const write = await defined('number_decimal', [
      ['min', '-2.5'],
      ['max', '100'],
      ['max_precision', '2'],
    ]);
    await expectAccepted(write('-2.5'));
    await expectAccepted(write('100.00'));
    await expectRefused(write('-2.51'), 'value: has a minimum of -2.5 (rule min)');
    await expectRefused(write('100.01'), 'value: has a maximum of 100 (rule max)');
    await expectRefused(write('1.505'), 'value: has a maximum precision of 2 (rule max_precision)');
    await expectRefused(write('1e3'), /^value: /);
  });
});

describe('list types (spec rule 4, decisions §2.6)', () => {
  it('list.min and list.max count elements; every other rule is applied to each element, naming its index', async () => {
    const write = await defined('list.single_line_text_field', [
      ['list.min', '1'],
      ['list.max', '3'],
      ['choices', '["a","b","c"]'],
    ]);
    await expectAccepted(write('["a","c"]'));
    await expectRefused(write('[]'), 'value: has a minimum of 1 elements (rule list.min)');
    await expectRefused(write('["a","b","c","a"]'), 'value: has a maximum of 3 elements (rule list.max)');
    await expectRefused(
      write('["a","x","c","y"]'),
      'value: has a maximum of 3 elements (rule list.max); value[1]: does not exist in provided choices (rule choices); value[3]: does not exist in provided choices (rule choices)',
    );
  });

  it('an empty element counts but skips the element rules', async () => {
    const write = await defined('list.number_integer', [
      ['list.max', '2'],
      ['min', '5'],
    ]);
    await expectAccepted(write('[5,""]'));
    await expectRefused(write('[5,4]'), 'value[1]: has a minimum of 5 (rule min)');
    await expectRefused(write('[5,"6"]'), 'value[1]: must be a JSON number');
  });

  it('a list value must be a JSON array', async () => {
    const write = await defined('list.url');
    await expectRefused(write('https://example.com'), 'value: must be a JSON array');
    await expectAccepted(write('["https://example.com"]'));
  });
});

describe('measures (decisions §8.10, §8.13)', () => {
  it('weight bounds given in other units compare after conversion', async () => {
    const write = await defined('weight', [
      ['min', '{"unit":"g","value":100}'],
      ['max', '{"unit":"kg","value":1}'],
    ]);
    await expectAccepted(write('{"value":2.2,"unit":"lb"}'));
    await expectAccepted(write('{"value":1000,"unit":"g"}'));
    await expectRefused(write('{"value":2.3,"unit":"lb"}'), 'value: has a maximum of 1 kg (rule max)');
    await expectRefused(write('{"value":3,"unit":"oz"}'), 'value: has a minimum of 100 g (rule min)');
    await expectRefused(write('{"value":1,"unit":"stone"}'), 'value.unit: must be one of g, kg, lb, oz');
  });
});

describe('json with schema (decisions §8.11)', () => {
  it('the value must conform to the schema', async () => {
    const write = await defined('json', [['schema', '{"type":"object","properties":{"size":{"enum":["S","M"]}},"required":["size"]}']]);
    await expectAccepted(write('{"size":"M"}'));
    await expectRefused(
      write('{"size":"XL"}'),
      'value: does not conform to the schema: /size must be equal to one of the allowed values (rule schema)',
    );
    await expectRefused(write('[1]'), 'value: does not conform to the schema: must be object (rule schema)');
    await expectRefused(write('{size:'), 'value: is not valid JSON');
  });
});

describe('references (decisions §8.14)', () => {
  it('metaobject_reference names an existing metaobject of the definition the rule names', async () => {
    const colors = await metaobjects(t, HANDLE, 'colour', ['red', 'blue']);
    const sizes = await metaobjects(t, HANDLE, 'size', ['small']);
    const write = await defined('metaobject_reference', [['metaobject_definition_id', colors.definitionId]]);
    await expectAccepted(write(colors.gids[0]!));
    await expectRefused(
      write(sizes.gids[0]!),
      `value: must reference an existing metaobject of definition ${colors.definitionId} (rule metaobject_definition_id)`,
    );
    await expectRefused(
      write('gid://platform/Metaobject/999999'),
      `value: must reference an existing metaobject of definition ${colors.definitionId} (rule metaobject_definition_id)`,
    );
    await expectRefused(write('gid://platform/Product/1'), /^value: /);

    const list = await defined('list.metaobject_reference', [
      ['metaobject_definition_id', `gid://platform/MetaobjectDefinition/${colors.definitionId}`],
    ]);
    await expectAccepted(list(JSON.stringify(colors.gids)));
    await expectRefused(
      list(JSON.stringify([colors.gids[0], sizes.gids[0]])),
      `value[1]: must reference an existing metaobject of definition ${colors.definitionId} (rule metaobject_definition_id)`,
    );
  });

  it('without the rule (and without a definition) any existing metaobject of the store will do', async () => {
    const kinds = await metaobjects(t, HANDLE, 'material', ['linen']);
    const write = await defined('metaobject_reference');
    await expectAccepted(write(kinds.gids[0]!));
    await expectRefused(write('gid://platform/Metaobject/999998'), 'value: must reference an existing metaobject');
    const undefinedKey = { namespace: 'rules', key: 'no_definition_ref', type: 'metaobject_reference' };
    await expectAccepted(api.create(product, { ...undefinedKey, value: kinds.gids[0] }));
    await expectRefused(
      api.create(product, { ...undefinedKey, value: 'gid://platform/Metaobject/999998' }),
      'value: must reference an existing metaobject',
    );
  });

  it('file_reference: file_type_options reads the kind from the global id', async () => {
    const write = await defined('file_reference', [['file_type_options', '["Image"]']]);
    await expectAccepted(write('gid://platform/MediaImage/5'));
    await expectRefused(write('gid://platform/Video/5'), 'value: must be a file of type Image (rule file_type_options)');
    await expectRefused(write('gid://platform/GenericFile/5'), 'value: must be a file of type Image (rule file_type_options)');
  });
});

describe('rating, url, date (decisions §8.8, §8.13)', () => {
  it("a rating's scale must equal the definition's and its value lie within it", async () => {
    const write = await defined('rating', [
      ['scale_min', '1'],
      ['scale_max', '5'],
    ]);
    await expectAccepted(write('{"value":"4.5","scale_min":"1","scale_max":"5"}'));
    await expectAccepted(write('{"value":"4.5","scale_min":"1.0","scale_max":"5"}'));
    await expectRefused(write('{"value":"6","scale_min":"1","scale_max":"10"}'), 'value: has a maximum of 5 (rule scale_max)');
    await expectRefused(
      write('{"value":"2","scale_min":"0","scale_max":"5"}'),
      "value: must have scale_min 1, the definition's scale (rule scale_min)",
    );
    await expectRefused(write('{"value":"6","scale_min":"1","scale_max":"5"}'), 'value: has a maximum of 5 (rule scale_max)');
  });

  it('allowed_domains compares origins exactly', async () => {
    const write = await defined('url', [['allowed_domains', '["https://shop.example.com"]']]);
    await expectAccepted(write('https://shop.example.com/a?b=c'));
    await expectRefused(write('https://evil.example.com/'), 'value: is not from an allowed domain (rule allowed_domains)');
    await expectRefused(write('http://shop.example.com/'), 'value: is not from an allowed domain (rule allowed_domains)');
  });

  it('dates compare as calendar dates', async () => {
    const write = await defined('date', [['max', '2026-12-31']]);
    await expectAccepted(write('2026-12-31'));
    await expectRefused(write('2027-01-01'), 'value: has a maximum of 2026-12-31 (rule max)');
    await expectRefused(write('2026-02-30'), /^value: /);
  });
});

describe('without a definition only the basic check runs (decisions §8.9)', () => {
  it('accepts anything of the right format, refuses the wrong format', async () => {
    const base = { namespace: 'loose', key: 'amount', type: 'number_decimal' };
    await expectAccepted(api.create(product, { ...base, value: '123456.123456789' }));
    await expectRefused(api.create(product, { ...base, value: '1.1234567891' }), /^value: /);
    await expectAccepted(api.create(product, { namespace: 'loose', key: 'flag', type: 'boolean', value: 'false' }));
    await expectRefused(
      api.create(product, { namespace: 'loose', key: 'flag', type: 'boolean', value: 'yes' }),
      'value: must be true or false',
    );
  });

  it('a value of another type already stored under a key now defined is re-judged on its next write', async () => {
    await expectAccepted(api.create(product, { namespace: 'later', key: 'size', type: 'single_line_text_field', value: 'big' }));
    await api.define({ namespace: 'later', key: 'size', type: 'number_integer' });
    await expectRefused(
      api.create(product, { namespace: 'later', key: 'size', value: 'big' }),
      'value: must be an integer (digits with an optional leading -, no leading zeros)',
    );
    const r = await api.create(product, { namespace: 'later', key: 'size', value: '3' });
    expect(r.status).toBe(200);
    expect(r.body.metafield.type).toBe('number_integer');
  });
});

describe('empty values depend on the version (decisions §2.6, spec rule 5)', () => {
  it('v20260601 accepts "" (and skips the rules); v20260901 refuses it', async () => {
    const write = await defined('single_line_text_field', [['min', '3']]);
    const old = apiOf(adminAt(t, token, 'v20260601'));
    const key = `rule_${counter}`;
    const accepted = await old.create(product, { namespace: 'rules', key, value: '' });
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get('x-platform-api-version')).toBe('v20260601');
    expect(accepted.body.metafield.value).toBe('');
    await expectRefused(write(''), "value: can't be blank");
    const updated = await old.update(product, accepted.body.metafield.id, { value: '' });
    expect(updated.status).toBe(200);
    const refused = await api.update(product, accepted.body.metafield.id, { value: '' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toBe("value: can't be blank");
  });

  it('also without a definition', async () => {
    const old = apiOf(adminAt(t, token, 'v20260601'));
    const base = { namespace: 'loose', key: 'empty_text', type: 'multi_line_text_field', value: '' };
    expect((await old.create(product, base)).status).toBe(201);
    await expectRefused(api.create(product, base), "value: can't be blank");
  });

  it('an empty element inside a list stays allowed in every version', async () => {
    const write = await defined('list.single_line_text_field', [['choices', '["a"]']]);
    await expectAccepted(write('["a",""]'));
  });
});

describe('regex on a linear-time engine (decisions §8.11)', () => {
  // The bound is the test's own 2 s timeout, not a timed assertion: a backtracking engine would take
  // far longer on this input and the test would fail by timing out.
  it('answers (a+)+$ against 50,000 a and a b within 2 s, through the whole API', async () => {
    const write = await defined('multi_line_text_field', [['regex', '(a+)+$']]);
    await expectRefused(write(`${'a'.repeat(50_000)}b`), 'value: does not match the regular expression (rule regex)');
  }, 2_000);
});

describe('a schema rule cannot stall the service (decisions §8.11)', () => {
  it('refuses, as too costly to check, a large value whose check would take far longer (the work budget stops it; bench/stress times it)', async () => {
    // 290 subschemas applied to each of 60,000 items (17 million applications) take seconds unbounded.
    const write = await defined('json', [
      ['schema', JSON.stringify({ items: { allOf: Array.from({ length: 290 }, (_, i) => ({ minimum: -i })) } })],
    ]);
    await expectRefused(
      write(`[${Array(60_000).fill('1').join(',')}]`),
      'value: does not conform to the schema: is too costly to check against this schema (it would take more than the work one value may cost) (rule schema)',
    );
    await expectAccepted(write('[1,2,3]'));
  }, 30_000);
});
