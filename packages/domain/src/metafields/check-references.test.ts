import { describe, expect, it } from 'vitest';
import { checkDefinitionReferences, checkMetaobjectReferences, collectMetaobjectReferences, referencedIds } from './check-references';

describe('references (decisions §8.14)', () => {
  it('collects the metaobjects a value names, skipping empty elements', () => {
    expect(collectMetaobjectReferences({ kind: 'metaobject_reference', gid: 'gid://platform/Metaobject/1', id: '1' }, null)).toEqual([
      { field: 'value', gid: 'gid://platform/Metaobject/1', id: '1', definitionId: null },
    ]);
    expect(
      collectMetaobjectReferences(
        { kind: 'list', elements: [null, { kind: 'metaobject_reference', gid: 'gid://platform/Metaobject/2', id: '2' }] },
        '9',
      ),
    ).toEqual([{ field: 'value[1]', gid: 'gid://platform/Metaobject/2', id: '2', definitionId: '9' }]);
    expect(collectMetaobjectReferences({ kind: 'boolean', value: true }, null)).toEqual([]);
  });

  it('gives the distinct ids for one lookup', () => {
    expect(referencedIds([{ id: '1' }, { id: '2' }, { id: '1' }])).toEqual(['1', '2']);
  });

  it('reports metaobjects that do not exist or belong to another definition', () => {
    const refs = [
      { field: 'value[0]', gid: 'gid://platform/Metaobject/1', id: '1', definitionId: '7' },
      { field: 'value[1]', gid: 'gid://platform/Metaobject/2', id: '2', definitionId: '7' },
      { field: 'value[2]', gid: 'gid://platform/Metaobject/3', id: '3', definitionId: '7' },
    ];
    const store = new Map([
      ['1', '7'],
      ['2', '8'],
    ]);
    expect(checkMetaobjectReferences(refs, (id) => store.get(id)).map((i) => i.message)).toEqual([
      'value[1]: must reference an existing metaobject of definition 7 (rule metaobject_definition_id)',
      'value[2]: must reference an existing metaobject of definition 7 (rule metaobject_definition_id)',
    ]);
    expect(checkMetaobjectReferences([{ field: 'value', gid: 'g', id: '5', definitionId: null }], () => null)).toEqual([
      { field: 'value', message: 'value: must reference an existing metaobject' },
    ]);
    expect(checkMetaobjectReferences([{ field: 'value', gid: 'g', id: '5', definitionId: null }], () => '123')).toEqual([]);
  });

  it('reports metaobject definitions that do not exist', () => {
    const refs = [{ field: 'validations[1].value', kind: 'metaobject_definition' as const, id: '42' }];
    expect(checkDefinitionReferences(refs, () => true)).toEqual([]);
    expect(checkDefinitionReferences(refs, () => false)).toEqual([
      {
        field: 'validations[1].value',
        message: 'validations[1].value: metaobject definition 42 does not exist (rule metaobject_definition_id)',
      },
    ]);
  });
});
