import { adminContract, ZScope } from '@platform/contract';
import { SCOPES } from '@platform/domain';
import { describe, expect, it } from 'vitest';

describe('scopes (decisions §5.5)', () => {
  it('are the same in the contract (request schemas, OpenAPI) and in the domain (checks)', () => {
    expect([...ZScope.options].sort()).toEqual([...SCOPES].sort());
  });
});

describe('Admin routes (decisions §5.5)', () => {
  it('each declare the scope they need in the contract, so the guard never lets one through unchecked', () => {
    const routes = Object.entries(adminContract) as [string, { metadata?: { scope?: unknown } }][];
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter(([, route]) => typeof route.metadata?.scope !== 'string').map(([name]) => name)).toEqual([]);
  });
});
