import { describe, expect, it } from 'vitest';
import { adminContract, contract } from './contract';
import {
  metafieldsContract,
  operatorMetafieldsContract,
  ZListMetafieldsQuery,
  ZMetafieldsSet,
  ZMetafieldInput,
} from './metafields.contract';

describe('metafield value routes (decisions §8.9)', () => {
  it('live under the Admin API prefix with these methods and paths', () => {
    expect(Object.entries(metafieldsContract).map(([key, r]) => `${key} ${r.method} ${r.path}`)).toEqual([
      'createProductMetafield POST /admin/openapi/:version/products/:id/metafields.json',
      'listProductMetafields GET /admin/openapi/:version/products/:id/metafields.json',
      'getProductMetafield GET /admin/openapi/:version/products/:id/metafields/:metafieldId.json',
      'updateProductMetafield PUT /admin/openapi/:version/products/:id/metafields/:metafieldId.json',
      'deleteProductMetafield DELETE /admin/openapi/:version/products/:id/metafields/:metafieldId.json',
      'setMetafields POST /admin/openapi/:version/metafields_set.json',
    ]);
    for (const key of Object.keys(metafieldsContract)) expect(adminContract).toHaveProperty(key);
  });

  it('need the metafield scope and the product scope (decisions §5.5)', () => {
    for (const route of Object.values(metafieldsContract)) {
      const write = route.method !== 'GET';
      expect(route.metadata).toMatchObject({
        auth: 'app',
        scope: write ? 'write_metafields' : 'read_metafields',
        alsoScopes: [write ? 'write_products' : 'read_products'],
      });
    }
  });

  it('the operator listing is on the operator API', () => {
    expect(operatorMetafieldsContract.listStoreMetafields.path).toBe('/platform/v1/stores/:handle/metafields');
    expect(contract.operator).toHaveProperty('listStoreMetafields');
  });
});

describe('request schemas', () => {
  it('values are strings; the type may be omitted', () => {
    expect(ZMetafieldInput.safeParse({ namespace: 'custom', key: 'size', value: '5' }).success).toBe(true);
    const numeric = ZMetafieldInput.safeParse({ namespace: 'custom', key: 'size', value: 5 });
    expect(numeric.success || numeric.error.issues[0]?.message).toBe('must be a string');
  });

  it("answers in the service's words, never zod's defaults (decisions §4)", () => {
    const issues = (body: unknown) => {
      const r = ZMetafieldsSet.safeParse(body);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    expect(issues({ metafields: [null] })).toEqual(['metafields.0: must be an object']);
    expect(issues({ metafields: null })).toEqual(['metafields: must be an array']);
    expect(issues([])).toEqual([': must be an object']);
    expect(issues({ metafields: [{ owner_resource: 'products', owner_id: '1', namespace: 'custom', key: 'k', value: 5 }] })).toEqual([
      'metafields.0.value: must be a string',
    ]);
    const repeated = ZListMetafieldsQuery.safeParse({ limit: ['1', '2'] });
    expect(repeated.success || repeated.error.issues[0]?.message).toBe('must be given once');
  });

  it('the bulk set holds 1 to 25 entries', () => {
    const entry = { owner_resource: 'products', owner_id: '1', namespace: 'custom', key: 'size', type: 'number_integer', value: '5' };
    expect(ZMetafieldsSet.safeParse({ metafields: Array(25).fill(entry) }).success).toBe(true);
    const over = ZMetafieldsSet.safeParse({ metafields: Array(26).fill(entry) });
    expect(over.success || over.error.issues[0]?.message).toBe('must hold at most 25 entries');
    const none = ZMetafieldsSet.safeParse({ metafields: [] });
    expect(none.success || none.error.issues[0]?.message).toBe('must hold at least 1 entry');
  });
});
