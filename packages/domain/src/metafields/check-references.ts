import type { DefinitionReference } from './compile-rule-set';
import type { ListValue, ParsedValue } from './define-values';
import { makeIssue, type Issue } from './format-issues';

// References need the store's data, which the engine never reads (no I/O). Validation hands them
// back; the caller gathers the ids of a whole request, looks them up in one query, then asks these
// pure functions for the issues (decisions §8.14).

export interface MetaobjectReference {
  /** Where to report a problem: `value` or `value[3]`. */
  readonly field: string;
  readonly gid: string;
  /** The metaobject's numeric id. */
  readonly id: string;
  /** The metaobject definition it must belong to (rule metaobject_definition_id), or null for any. */
  readonly definitionId: string | null;
}

export const NO_REFERENCES: readonly MetaobjectReference[] = Object.freeze([]);

export function collectMetaobjectReferences(value: ParsedValue, definitionId: string | null): MetaobjectReference[] {
  if (value.kind === 'metaobject_reference') return [{ field: 'value', gid: value.gid, id: value.id, definitionId }];
  const out: MetaobjectReference[] = [];
  if (value.kind !== 'list') return out;
  (value as ListValue).elements.forEach((e, i) => {
    if (e !== null && e.kind === 'metaobject_reference') out.push({ field: `value[${i}]`, gid: e.gid, id: e.id, definitionId });
  });
  return out;
}

/** The distinct ids of some references, for one `WHERE id IN (...)` lookup. */
export function referencedIds(references: readonly { readonly id: string }[]): string[] {
  return [...new Set(references.map((r) => r.id))];
}

export function missingMetaobjectText(definitionId: string | null): string {
  return definitionId === null
    ? 'must reference an existing metaobject'
    : `must reference an existing metaobject of definition ${definitionId} (rule metaobject_definition_id)`;
}

/**
 * Issues for value references. `definitionOf` answers, for a metaobject id, the id of the definition
 * it belongs to, or undefined/null when no such metaobject exists in the store.
 */
export function checkMetaobjectReferences(
  references: readonly MetaobjectReference[],
  definitionOf: (metaobjectId: string) => string | null | undefined,
): Issue[] {
  const issues: Issue[] = [];
  for (const ref of references) {
    const found = definitionOf(ref.id);
    const ok = found !== undefined && found !== null && (ref.definitionId === null || found === ref.definitionId);
    if (!ok) {
      const rule = ref.definitionId === null ? undefined : ({ name: 'metaobject_definition_id', kind: 'broken' } as const);
      issues.push(makeIssue(ref.field, missingMetaobjectText(ref.definitionId), rule));
    }
  }
  return issues;
}

/** Issues for definition references: `exists` answers whether the store has that metaobject definition. */
export function checkDefinitionReferences(references: readonly DefinitionReference[], exists: (definitionId: string) => boolean): Issue[] {
  return references
    .filter((ref) => !exists(ref.id))
    .map((ref) => {
      const reason = `metaobject definition ${ref.id} does not exist`;
      return makeIssue(ref.field, `${reason} (rule metaobject_definition_id)`, { name: 'metaobject_definition_id', kind: 'value', reason });
    });
}
