import { ZScope } from '@platform/contract';
import { SCOPES } from '@platform/domain';
import { describe, expect, it } from 'vitest';

describe('scopes (decisions §5.5)', () => {
  it('are the same in the contract (request schemas, OpenAPI) and in the domain (checks)', () => {
    expect([...ZScope.options].sort()).toEqual([...SCOPES].sort());
  });
});
