import { describe, expect, it } from 'vitest';
import { validateDefinition, type NormalizedDefinition } from './validate-definition';
import { validateDefinitionUpdate } from './validate-definition-update';

function stored(): NormalizedDefinition {
  const result = validateDefinition({
    owner_resource: 'products',
    namespace: 'custom',
    key: 'size',
    name: 'Size',
    description: 'Label size',
    type: 'single_line_text_field',
    validations: [{ name: 'choices', value: '["S","M"]' }],
    access: { admin: 'PUBLIC_READ' },
  });
  if (!result.ok) throw new Error('fixture');
  return result.value;
}

describe('validateDefinitionUpdate (spec operations rule 3, decisions §8.5)', () => {
  it('keeps every field that is omitted or null', () => {
    const before = stored();
    for (const patch of [{}, { name: null, description: null, validations: null, access: null }]) {
      expect(validateDefinitionUpdate(before, patch)).toEqual({ ok: true, value: before, references: [], validationsChanged: false });
    }
    expect(validateDefinitionUpdate(before, { access: { admin: null } })).toMatchObject({
      ok: true,
      value: { access: { admin: 'PUBLIC_READ' } },
    });
  });

  it('changes the fields given', () => {
    const result = validateDefinitionUpdate(stored(), { name: 'Label', description: 'New', access: { admin: 'PRIVATE' } });
    expect(result).toMatchObject({
      ok: true,
      value: { name: 'Label', description: 'New', access: { admin: 'PRIVATE' } },
      validationsChanged: false,
    });
  });

  it('clears stored text with an empty string: the description becomes "", not "never given" (spec update rule 3)', () => {
    expect(validateDefinitionUpdate(stored(), { description: '' })).toMatchObject({ ok: true, value: { description: '' } });
    expect(validateDefinitionUpdate({ ...stored(), description: '' }, { description: null })).toMatchObject({
      ok: true,
      value: { description: '' },
    });
    expect(validateDefinitionUpdate({ ...stored(), description: null }, {})).toMatchObject({ ok: true, value: { description: null } });
    expect(validateDefinitionUpdate(stored(), { access: { admin: '' } })).toMatchObject({ ok: true, value: { access: null } });
  });

  it('refuses to clear the required name', () => {
    expect(validateDefinitionUpdate(stored(), { name: '' })).toEqual({
      ok: false,
      issues: [{ field: 'name', message: "name: can't be blank" }],
    });
  });

  it('clears every rule with an empty validations array', () => {
    expect(validateDefinitionUpdate(stored(), { validations: [] })).toMatchObject({
      ok: true,
      value: { validations: [] },
      validationsChanged: true,
    });
  });

  it('replaces the rules with a non-empty array, validated against the stored type', () => {
    expect(validateDefinitionUpdate(stored(), { validations: [{ name: 'max', value: '3' }] })).toMatchObject({
      ok: true,
      value: { validations: [{ name: 'max', value: '3' }] },
      validationsChanged: true,
    });
    expect(validateDefinitionUpdate(stored(), { validations: [{ name: 'schema', value: '{}' }] })).toEqual({
      ok: false,
      issues: [{ field: 'validations[0].name', message: "validations[0].name: 'schema' does not apply to type single_line_text_field" }],
    });
    expect(validateDefinitionUpdate(stored(), { validations: [{ name: 'choices', value: '["S","M"]' }] })).toMatchObject({
      validationsChanged: false,
    });
  });

  it('refuses a different type, and accepts the same one', () => {
    expect(validateDefinitionUpdate(stored(), { type: 'multi_line_text_field' })).toEqual({
      ok: false,
      issues: [{ field: 'type', message: "type: cannot be changed (the definition's type is single_line_text_field)" }],
    });
    expect(validateDefinitionUpdate(stored(), { type: 'single_line_text_field' }).ok).toBe(true);
  });

  it('validates the merged definition as a whole, every problem at once', () => {
    expect(validateDefinitionUpdate(stored(), { type: 'boolean', name: 'x'.repeat(256), access: { admin: 'EVERYONE' } })).toEqual({
      ok: false,
      issues: [
        { field: 'type', message: "type: cannot be changed (the definition's type is single_line_text_field)" },
        { field: 'name', message: 'name: is too long (maximum is 255 characters)' },
        {
          field: 'access.admin',
          message: 'access.admin: is not included in the list (MERCHANT_READ_WRITE, MERCHANT_READ, PUBLIC_READ, PRIVATE, NONE)',
        },
      ],
    });
  });

  it('keeps the target fields: owner_resource, namespace and key only identify it', () => {
    expect(validateDefinitionUpdate(stored(), { owner_resource: 'orders', namespace: 'other', key: 'other' })).toMatchObject({
      ok: true,
      value: { owner_resource: 'products', namespace: 'custom', key: 'size' },
    });
  });
});
