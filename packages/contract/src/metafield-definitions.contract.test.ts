import { describe, expect, it } from 'vitest';
import { adminContract, contract } from './contract';
import {
  metafieldDefinitionsContract,
  operatorMetafieldDefinitionsContract,
  ZListedMetafieldDefinition,
  ZMetafieldDefinition,
  type MetafieldDefinition,
} from './metafield-definitions.contract';

const sample: MetafieldDefinition = {
  id: '7',
  owner_resource: 'products',
  namespace: 'app--12--settings',
  key: 'theme',
  name: 'Theme',
  description: null,
  type: 'single_line_text_field',
  validations: [{ name: 'choices', value: '["light","dark"]' }],
  access: null,
  created_at: '2026-11-22T12:05:01+08:00',
  updated_at: '2026-11-22T12:05:01+08:00',
};

describe('metafield definition routes (spec "Metafield definition operations", decisions §8.4, §8.6)', () => {
  it('are the four operations on /metafield_definition.json and the listing, with their scopes', () => {
    const routes = Object.entries(metafieldDefinitionsContract).map(
      ([key, route]) => `${key} ${route.method} ${route.path} ${(route.metadata as { scope: string }).scope}`,
    );
    expect(routes).toEqual([
      'createMetafieldDefinition POST /admin/openapi/:version/metafield_definition.json write_metafields',
      'getMetafieldDefinition GET /admin/openapi/:version/metafield_definition.json read_metafields',
      'updateMetafieldDefinition PUT /admin/openapi/:version/metafield_definition.json write_metafields',
      'deleteMetafieldDefinition DELETE /admin/openapi/:version/metafield_definition.json write_metafields',
      'listMetafieldDefinitions GET /admin/openapi/:version/metafield_definitions.json read_metafields',
    ]);
    for (const key of Object.keys(metafieldDefinitionsContract)) expect(adminContract).toHaveProperty(key);
  });

  it('put the operator routes under /platform/v1 with the operator token', () => {
    const routes = Object.entries(operatorMetafieldDefinitionsContract).map(([key, route]) => `${key} ${route.method} ${route.path}`);
    expect(routes).toEqual([
      'listMerchantMetafieldDefinitions GET /platform/v1/stores/:handle/metafield_definitions',
      'createMetaobjectDefinition POST /platform/v1/stores/:handle/metaobject_definitions',
      'createMetaobject POST /platform/v1/stores/:handle/metaobject_definitions/:id/metaobjects',
    ]);
    for (const route of Object.values(operatorMetafieldDefinitionsContract)) expect(route.metadata).toMatchObject({ auth: 'operator' });
    for (const key of Object.keys(operatorMetafieldDefinitionsContract)) expect(contract.operator).toHaveProperty(key);
  });

  it('describe the definition object of the spec, access and description nullable', () => {
    expect(Object.keys(ZMetafieldDefinition.shape)).toEqual([
      'id',
      'owner_resource',
      'namespace',
      'key',
      'name',
      'description',
      'type',
      'validations',
      'access',
      'created_at',
      'updated_at',
    ]);
    expect(ZMetafieldDefinition.parse(sample)).toEqual(sample);
    expect(ZMetafieldDefinition.safeParse({ ...sample, access: { admin: 'PUBLIC_READ' } }).success).toBe(true);
    expect(ZMetafieldDefinition.safeParse({ ...sample, access: { admin: 'EVERYONE' } }).success).toBe(false);
    expect(ZListedMetafieldDefinition.safeParse({ id: '7', key: 'theme' }).success).toBe(true);
  });

  it('wrap bodies in "definition"', () => {
    const body = metafieldDefinitionsContract.createMetafieldDefinition.body;
    const definition = { owner_resource: 'products', namespace: 'custom', key: 'fabric', name: 'Fabric', type: 'boolean' };
    expect(body.safeParse({ definition }).success).toBe(true);
    expect(body.safeParse(definition).success).toBe(false);
    const update = metafieldDefinitionsContract.updateMetafieldDefinition.body;
    expect(update.safeParse({ definition: { owner_resource: 'products', namespace: 'custom', key: 'fabric', name: null } }).success).toBe(
      true,
    );
    expect(update.safeParse({ definition: { name: 'x' } }).success).toBe(false);
  });
});
