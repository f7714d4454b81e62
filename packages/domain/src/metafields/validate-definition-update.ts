import type { Issue } from './format-issues';
import { makeIssue } from './format-issues';
import { validateDefinition, type DefinitionInput, type DefinitionResult, type NormalizedDefinition } from './validate-definition';

// Update semantics (spec "Metafield definition operations" rule 3, decisions §8.5): an omitted or
// null field keeps its stored value, an empty string clears stored text, an empty validations array
// clears every rule, and the type cannot change. The merged definition is then validated whole.

/** The update body: owner_resource, namespace and key identify the target; the rest may change. */
export type DefinitionPatch = DefinitionInput;

export type DefinitionUpdateResult =
  | (Extract<DefinitionResult, { ok: true }> & {
      /** True when the rules differ from the stored ones: existing values are re-checked (decisions §8.12). */
      readonly validationsChanged: boolean;
    })
  | Extract<DefinitionResult, { ok: false }>;

function kept<T>(patched: unknown, stored: T): unknown {
  return patched === undefined || patched === null ? stored : patched;
}

function mergeAccess(patched: unknown, stored: NormalizedDefinition['access']): unknown {
  if (patched === undefined || patched === null) return stored;
  if (typeof patched !== 'object' || Array.isArray(patched)) return patched;
  const admin = (patched as Record<string, unknown>)['admin'];
  // `{admin: null}` keeps, `{admin: ""}` clears, like any other field.
  if (admin === undefined || admin === null) return stored;
  return patched;
}

export function validateDefinitionUpdate(stored: NormalizedDefinition, patch: DefinitionPatch): DefinitionUpdateResult {
  const issues: Issue[] = [];
  if (patch.type !== undefined && patch.type !== null && patch.type !== stored.type) {
    issues.push(makeIssue('type', `cannot be changed (the definition's type is ${stored.type})`));
  }
  const merged: DefinitionInput = {
    owner_resource: stored.owner_resource,
    namespace: stored.namespace,
    key: stored.key,
    type: stored.type,
    name: kept(patch.name, stored.name),
    description: kept(patch.description, stored.description),
    validations: kept(patch.validations, stored.validations),
    access: mergeAccess(patch.access, stored.access),
  };
  const result = validateDefinition(merged);
  if (!result.ok) return { ok: false, issues: [...issues, ...result.issues] };
  if (issues.length > 0) return { ok: false, issues };
  return { ...result, validationsChanged: !sameRules(stored.validations, result.value.validations) };
}

function sameRules(a: NormalizedDefinition['validations'], b: NormalizedDefinition['validations']): boolean {
  return a.length === b.length && a.every((rule, i) => rule.name === b[i]?.name && rule.value === b[i]?.value);
}
