import { RE2JS } from 're2js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkMetaobjectReferences } from './check-references';
import { compileValidator, RULES_ONLY, tryCompileValidator } from './compile-validator';
import { InvalidDefinitionError } from './format-issues';

const NEW = { version: 'v20260901' };
const OLD = { version: 'v20260601' };
const rules = (...pairs: [string, string][]) => pairs.map(([name, value]) => ({ name, value }));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('two levels (spec "Rules on the array" 6)', () => {
  it('runs the rules only when the basic check passes', () => {
    const validate = compileValidator({ type: 'number_integer', validations: rules(['max', '5']) });
    const result = validate('7.5', NEW);
    expect(result).toEqual({
      ok: false,
      issues: [{ field: 'value', message: 'value: must be an integer (digits with an optional leading -, no leading zeros)' }],
    });
  });

  it('a list with a bad element reports the basic problem only', () => {
    const validate = compileValidator({ type: 'list.number_integer', validations: rules(['max', '5'], ['list.max', '1']) });
    expect(validate('[9, "x"]', NEW)).toEqual({ ok: false, issues: [{ field: 'value[1]', message: 'value[1]: must be a JSON number' }] });
  });

  it('returns the parsed value when both pass', () => {
    const validate = compileValidator({ type: 'date', validations: rules(['min', '2026-01-01']) });
    expect(validate('2026-05-01', NEW)).toEqual({
      ok: true,
      value: { kind: 'date', text: '2026-05-01', ordinal: 20260501 },
      references: [],
    });
  });

  it('without rules runs the basic check alone (a write without a definition, §8.9)', () => {
    const validate = compileValidator({ type: 'boolean' });
    expect(validate('true', NEW).ok).toBe(true);
    expect(validate('yes', NEW).ok).toBe(false);
  });
});

describe('empty values by version (decisions §2.6)', () => {
  it('from v20260901 an empty value is refused', () => {
    const validate = compileValidator({ type: 'single_line_text_field', validations: [] });
    expect(validate('', NEW)).toEqual({ ok: false, issues: [{ field: 'value', message: "value: can't be blank" }] });
    expect(validate('', { version: 'v20270301' }).ok).toBe(false);
  });

  it('before it, "" is accepted and skips the rules, whatever the type', () => {
    for (const [type, validations] of [
      ['single_line_text_field', rules(['min', '3'], ['choices', '["abc"]'])],
      ['number_integer', rules(['min', '1'])],
      ['list.url', rules(['list.min', '1'])],
      ['boolean', []],
    ] as const) {
      const validate = compileValidator({ type, validations });
      expect(validate('', OLD), type).toEqual({ ok: true, value: { kind: 'empty' }, references: [] });
    }
  });

  it('an empty element inside a list stays allowed and skips the element rules, in every version', () => {
    const validate = compileValidator({ type: 'list.single_line_text_field', validations: rules(['min', '2'], ['choices', '["ab"]']) });
    for (const ctx of [OLD, NEW]) {
      expect(validate('["ab",""]', ctx)).toMatchObject({ ok: true, value: { kind: 'list', elements: [{ text: 'ab' }, null] } });
    }
    expect(compileValidator({ type: 'list.date', validations: rules(['min', '2026-01-01']) })('["", "2026-01-02"]', NEW).ok).toBe(true);
  });

  it('judged against the definition alone (RULES_ONLY, the re-check, §8.12), "" stays valid and the rest is judged as ever', () => {
    const validate = compileValidator({ type: 'single_line_text_field', validations: rules(['max', '10']) });
    expect(validate('', RULES_ONLY)).toEqual({ ok: true, value: { kind: 'empty' }, references: [] });
    expect(validate('x'.repeat(15), RULES_ONLY)).toEqual({
      ok: false,
      issues: [{ field: 'value', message: 'value: has a maximum length of 10 (rule max)' }],
    });
  });

  it('an empty list is not an empty value', () => {
    expect(compileValidator({ type: 'list.url' })('[]', NEW).ok).toBe(true);
  });
});

describe('lists (spec "Rules on the array" 4)', () => {
  it('list.min/list.max count elements; every other rule runs on each non-empty element, named by index', () => {
    const validate = compileValidator({
      type: 'list.single_line_text_field',
      validations: rules(['list.max', '2'], ['choices', '["a","b"]']),
    });
    expect(validate('["a","c","","d"]', NEW)).toEqual({
      ok: false,
      issues: [
        { field: 'value', message: 'value: has a maximum of 2 elements (rule list.max)' },
        { field: 'value[1]', message: 'value[1]: does not exist in provided choices (rule choices)' },
        { field: 'value[3]', message: 'value[3]: does not exist in provided choices (rule choices)' },
      ],
    });
  });
});

describe('metaobject references (decisions §8.14)', () => {
  it('are returned for the caller to look up in one query', () => {
    const validate = compileValidator({
      type: 'list.metaobject_reference',
      validations: rules(['metaobject_definition_id', 'gid://platform/MetaobjectDefinition/7']),
    });
    const result = validate('["gid://platform/Metaobject/1","","gid://platform/Metaobject/2"]', NEW);
    expect(result).toMatchObject({
      ok: true,
      references: [
        { field: 'value[0]', gid: 'gid://platform/Metaobject/1', id: '1', definitionId: '7' },
        { field: 'value[2]', gid: 'gid://platform/Metaobject/2', id: '2', definitionId: '7' },
      ],
    });
    if (!result.ok) return;
    const store = new Map([
      ['1', '7'],
      ['2', '8'],
    ]);
    expect(checkMetaobjectReferences(result.references, (id) => store.get(id))).toEqual([
      { field: 'value[2]', message: 'value[2]: must reference an existing metaobject of definition 7 (rule metaobject_definition_id)' },
    ]);
  });

  it('without the rule, any existing metaobject will do', () => {
    const result = compileValidator({ type: 'metaobject_reference' })('gid://platform/Metaobject/5', NEW);
    expect(result).toMatchObject({ ok: true, references: [{ field: 'value', id: '5', definitionId: null }] });
  });

  it('are checked inline when the context can answer', () => {
    const validate = compileValidator({ type: 'list.metaobject_reference', validations: rules(['metaobject_definition_id', '7']) });
    const seen: [string, string | null][] = [];
    const metaobjectExists = (id: string, definitionId: string | null) => {
      seen.push([id, definitionId]);
      return id === '1';
    };
    expect(validate('["gid://platform/Metaobject/1","gid://platform/Metaobject/2"]', { version: 'v20260901', metaobjectExists })).toEqual({
      ok: false,
      issues: [
        { field: 'value[1]', message: 'value[1]: must reference an existing metaobject of definition 7 (rule metaobject_definition_id)' },
      ],
    });
    expect(seen).toEqual([
      ['1', '7'],
      ['2', '7'],
    ]);
    expect(validate('["gid://platform/Metaobject/1"]', { version: 'v20260901', metaobjectExists }).ok).toBe(true);
  });

  it('are absent for other types', () => {
    expect(compileValidator({ type: 'file_reference' })('gid://platform/Video/1', NEW)).toMatchObject({ ok: true, references: [] });
  });
});

describe('compiled once', () => {
  it('compiles the regex at compile time, not per value', () => {
    const compile = vi.spyOn(RE2JS, 'compile');
    const validate = compileValidator({ type: 'single_line_text_field', validations: rules(['regex', '^[a-z]+$']) });
    const compiles = compile.mock.calls.length;
    expect(compiles).toBeGreaterThan(0);
    for (let i = 0; i < 100; i++) validate(i % 2 === 0 ? 'abc' : 'ABC', NEW);
    expect(compile.mock.calls.length).toBe(compiles);
  });

  it('compiles schema patterns at compile time, not per value', () => {
    const validate = compileValidator({ type: 'json', validations: rules(['schema', '{"properties":{"a":{"pattern":"^x"}}}']) });
    const compile = vi.spyOn(RE2JS, 'compile');
    for (let i = 0; i < 50; i++) expect(validate(i % 2 === 0 ? '{"a":"xy"}' : '{"a":"y"}', NEW).ok).toBe(i % 2 === 0);
    expect(compile).not.toHaveBeenCalled();
  });

  it('keeps results independent between calls', () => {
    const validate = compileValidator({ type: 'number_integer', validations: rules(['max', '5']) });
    const first = validate('6', NEW);
    const second = validate('7', NEW);
    validate('1', NEW);
    expect(first).toEqual({ ok: false, issues: [{ field: 'value', message: 'value: has a maximum of 5 (rule max)' }] });
    expect(second).toEqual({ ok: false, issues: [{ field: 'value', message: 'value: has a maximum of 5 (rule max)' }] });
  });
});

describe('definitions the validator cannot compile', () => {
  it('throws for compileValidator, returns issues for tryCompileValidator', () => {
    expect(() => compileValidator({ type: 'boolean', validations: rules(['max', '1']) })).toThrow(InvalidDefinitionError);
    expect(tryCompileValidator({ type: 'boolean', validations: rules(['max', '1']) })).toEqual({
      ok: false,
      issues: [{ field: 'validations[0].name', message: "validations[0].name: 'max' does not apply to type boolean" }],
    });
    expect(tryCompileValidator({ type: 'text', validations: rules(['foo', '1']) })).toEqual({
      ok: false,
      issues: [
        { field: 'type', message: "type: 'text' is not a supported type" },
        { field: 'validations[0].name', message: "validations[0].name: 'foo' is not a supported rule" },
      ],
    });
    const error = (() => {
      try {
        compileValidator({ type: 'url', validations: rules(['allowed_domains', '["example.com"]']) });
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidDefinitionError);
    expect((error as InvalidDefinitionError).issues).toHaveLength(1);
    expect((error as Error).message).toMatch(/^invalid metafield definition: validations\[0\]\.value: /);
  });
});
