import type { DefinitionInput, Issue, RuleName } from '@platform/domain';
import type { FormFields } from './merchant-session.guard';
import { ruleFieldOfIssue, type RuleRow } from './rule-fields';

/** The access radio's value as the API's `access` (empty: not given). */
function accessOf(form: FormFields): { admin: string } | undefined {
  const admin = form.access;
  return admin === undefined || admin === '' ? undefined : { admin };
}

/** A create form as the body the Admin API takes (its `definition` object); the service judges every field. */
export function createInput(form: FormFields, rules: RuleRow[]): DefinitionInput {
  return {
    owner_resource: form.owner_resource ?? '',
    namespace: form.namespace ?? '',
    key: form.key ?? '',
    name: form.name ?? '',
    type: form.type ?? '',
    ...(form.description ? { description: form.description } : {}),
    validations: rules,
    ...(accessOf(form) ? { access: accessOf(form) } : {}),
  };
}

/**
 * An edit form as an update's patch (spec update rules): the target is the definition's own, an
 * empty description clears it, the rule fields replace the rules (none filled clears them all), and
 * `access` is sent only when the form has the field (the merchant's own definitions).
 */
export function updatePatch(
  form: FormFields,
  target: { ownerResource: string; namespace: string; key: string },
  rules: RuleRow[],
): DefinitionInput {
  return {
    owner_resource: target.ownerResource,
    namespace: target.namespace,
    key: target.key,
    name: form.name ?? '',
    description: form.description ?? '',
    validations: rules,
    ...(form.access !== undefined ? { access: accessOf(form) ?? null } : {}),
  };
}

/**
 * The form field an API problem is shown beside: a rule's beside its field (rule-fields.ts), a
 * field the page shows (`shown`) beside itself, anything else is one of the whole form's ('').
 */
export function definitionFieldOf(issue: Issue, order: readonly RuleName[], type: string, shown: ReadonlySet<string>): string {
  const rule = ruleFieldOfIssue(issue, order, type);
  if (rule !== undefined) return rule;
  const name = issue.field === 'access.admin' ? 'access' : issue.field;
  return shown.has(name) ? name : '';
}

/** The fields of the create form, and of the edit form of the merchant's own definition or of an app's. */
export const CREATE_FIELDS: ReadonlySet<string> = new Set(['owner_resource', 'namespace', 'key', 'name', 'description', 'type', 'access']);
export const OWN_EDIT_FIELDS: ReadonlySet<string> = new Set(['name', 'description', 'access']);
export const APP_EDIT_FIELDS: ReadonlySet<string> = new Set(['name', 'description']);
