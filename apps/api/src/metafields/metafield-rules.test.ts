import { describe, expect, it } from 'vitest';
import {
  MetafieldValidators,
  namespaceAndKeyIssues,
  prefixIssues,
  storedNamespace,
  valueAccess,
  VALIDATOR_CACHE_MAX_ENTRIES,
  type DefinitionRow,
} from './metafield-rules';

/** valueAccess's outcome alone (its reasons are the domain's resolveAccess tests'). */
const access = (...args: Parameters<typeof valueAccess>) => valueAccess(...args).outcome;

const definition = (overrides: Partial<DefinitionRow> = {}): DefinitionRow => ({
  id: 1n,
  appId: 7n,
  namespace: 'custom',
  key: 'size',
  description: '',
  type: 'number_integer',
  validations: '[{"name":"max","value":"10"}]',
  accessAdmin: null,
  rulesRevision: 0,
  updatedAt: new Date(0),
  ...overrides,
});

const creator = { kind: 'app', appId: 7n } as const;
const other = { kind: 'app', appId: 8n } as const;
const merchant = { kind: 'merchant' } as const;

describe('valueAccess (spec "Access permission values", decisions §8.7)', () => {
  it.each([
    ['MERCHANT_READ_WRITE', 'not_found', 'not_found', 'allowed'],
    ['MERCHANT_READ', 'not_found', 'not_found', 'allowed'],
    ['PUBLIC_READ', 'allowed', 'forbidden', 'allowed'],
    ['PRIVATE', 'not_found', 'not_found', 'not_found'],
    ['NONE', 'allowed', 'allowed', 'allowed'],
  ])('%s: other app reads %s, writes %s; the merchant reads %s', (admin, read, write, merchantRead) => {
    const d = definition({ accessAdmin: admin });
    expect(access(other, 'custom', d, 'read_values')).toBe(read);
    expect(access(other, 'custom', d, 'write_values')).toBe(write);
    expect(access(merchant, 'custom', d, 'read_values')).toBe(merchantRead);
    expect(access(creator, 'custom', d, 'write_values')).toBe('allowed');
  });

  it('an unset access is NONE, or MERCHANT_READ_WRITE in an app namespace (decisions §8.7)', () => {
    expect(access(other, 'custom', definition(), 'write_values')).toBe('allowed');
    expect(access(other, 'app--7--x', definition({ namespace: 'app--7--x' }), 'read_values')).toBe('not_found');
  });

  it("without a definition: no restriction, except in another app's reserved namespace (decisions §8.2)", () => {
    expect(access(other, 'custom', undefined, 'write_values')).toBe('allowed');
    expect(access(other, 'app--7--x', undefined, 'read_values')).toBe('not_found');
    expect(access(creator, 'app--7--x', undefined, 'write_values')).toBe('allowed');
    expect(access(merchant, 'app--7--x', undefined, 'read_values')).toBe('allowed');
    // A write by name there is refused for the namespace, whether or not anything exists.
    expect(valueAccess(other, 'app--7--x', undefined, 'use_namespace')).toEqual({ outcome: 'forbidden', reason: 'reserved_namespace' });
    expect(valueAccess(other, 'app--7--x', definition({ namespace: 'app--7--x', accessAdmin: 'PRIVATE' }), 'use_namespace')).toEqual({
      outcome: 'forbidden',
      reason: 'reserved_namespace',
    });
    expect(valueAccess(creator, 'app--7--x', undefined, 'use_namespace')).toEqual({ outcome: 'allowed' });
  });
});

describe('namespaces and keys', () => {
  it('expands $app: for the calling app and keeps other spellings (decisions §8.2)', () => {
    expect(storedNamespace('$app:prefs', 12n)).toBe('app--12--prefs');
    expect(storedNamespace('app--12--prefs', 12n)).toBe('app--12--prefs');
    expect(storedNamespace('custom', 12n)).toBe('custom');
  });

  it('reports only namespace and key problems, with the definition rules', () => {
    expect(namespaceAndKeyIssues('custom', 'size')).toEqual([]);
    expect(namespaceAndKeyIssues('$app:', 'a b').map((i) => i.message)).toEqual([
      'namespace: is too short (minimum is 3 characters)',
      'key: can only contain letters, digits, hyphens and underscores',
    ]);
  });

  it('prefixes issues with the entry of a bulk request', () => {
    expect(prefixIssues([{ field: 'value[1]', message: 'value[1]: bad' }], 'metafields[3].')).toEqual([
      { field: 'metafields[3].value[1]', message: 'metafields[3].value[1]: bad' },
    ]);
  });
});

describe(MetafieldValidators.name, () => {
  it('compiles once per definition version and recompiles when the rules revision changes', () => {
    const sut = new MetafieldValidators();
    const first = sut.forDefinition(definition());
    expect(sut.forDefinition(definition())).toBe(first);
    const next = sut.forDefinition(definition({ rulesRevision: 1, validations: '[{"name":"max","value":"5"}]' }));
    expect(next).not.toBe(first);
    expect(next.ok && next.validator('6', { version: 'v20260901' }).ok).toBe(false);
    expect(first.ok && first.validator('6', { version: 'v20260901' }).ok).toBe(true);
  });

  it('without a definition only the basic check runs; an unknown type is a type problem', () => {
    const sut = new MetafieldValidators();
    const integer = sut.forType('number_integer');
    expect(integer.ok && integer.validator('123456', { version: 'v20260901' }).ok).toBe(true);
    expect(sut.forType('colour')).toEqual({ ok: false, message: "type: 'colour' is not a supported type" });
  });

  it('keeps at most 1,000 validators, the least recently used going first', () => {
    const sut = new MetafieldValidators();
    const first = sut.forDefinition(definition({ id: 0n }));
    const second = sut.forDefinition(definition({ id: 1n }));
    for (let id = 2n; id < 1000n; id++) sut.forDefinition(definition({ id }));
    expect(sut.forDefinition(definition({ id: 0n }))).toBe(first); // used again: now the most recent
    sut.forDefinition(definition({ id: 1000n }));
    expect(sut.size).toBe(VALIDATOR_CACHE_MAX_ENTRIES);
    expect(sut.forDefinition(definition({ id: 0n }))).toBe(first);
    expect(sut.forDefinition(definition({ id: 1n }))).not.toBe(second); // evicted, compiled again
  });

  it('a stored definition whose rules are not JSON is reported, not thrown', () => {
    expect(new MetafieldValidators().forDefinition(definition({ validations: '{' })).ok).toBe(false);
  });
});
