import { RULE_NAMES, type DefinitionInput } from '@platform/domain';
import type { FormFields } from './merchant-session.guard';

/** Rule rows a definition form reads at most: each rule name appears once (spec), plus room for mistakes the API names. */
export const MAX_RULE_ROWS = RULE_NAMES.length + 7;
/** Empty rule rows the form offers after the rules a definition has. */
export const SPARE_RULE_ROWS = 3;

export interface RuleRow {
  name: string;
  value: string;
}

/** The rule rows posted (`rule.0.name`, `rule.0.value`, ...), and which row each rule sent came from. */
export function readRules(form: FormFields): { rows: RuleRow[]; rules: RuleRow[]; rowOf: number[] } {
  const rows: RuleRow[] = [];
  const rules: RuleRow[] = [];
  const rowOf: number[] = [];
  for (let i = 0; i < MAX_RULE_ROWS; i++) {
    const name = form[`rule.${i}.name`];
    const value = form[`rule.${i}.value`];
    if (name === undefined && value === undefined) break;
    const row = { name: name ?? '', value: value ?? '' };
    rows.push(row);
    // A row with either half filled is sent: the API names what is missing (spec: a rule needs both).
    if (row.name !== '' || row.value !== '') {
      rules.push(row);
      rowOf.push(i);
    }
  }
  return { rows, rules, rowOf };
}

/** The access select's value as the API's `access` (empty: not given). */
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
 * empty description clears it, the rule rows replace the rules (none left clears them all), and
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
 * The form field an API problem is shown beside: `validations[2].value` beside the value of the
 * rule row it came from; a field the page does not show (`shown`) is one of the whole form's.
 */
export function definitionFieldOf(field: string, rowOf: readonly number[], shown: ReadonlySet<string>): string {
  const rule = /^validations\[(\d+)\]/.exec(field);
  if (rule) {
    const row = rowOf[Number(rule[1])];
    return row === undefined ? 'rules' : `rule.${row}.value`;
  }
  if (field.startsWith('validations')) return 'rules';
  const name = field === 'access.admin' ? 'access' : field;
  return shown.has(name) ? name : '';
}

/** The fields of the create form, and of the edit form of the merchant's own definition or of an app's. */
export const CREATE_FIELDS: ReadonlySet<string> = new Set(['owner_resource', 'namespace', 'key', 'name', 'description', 'type', 'access']);
export const OWN_EDIT_FIELDS: ReadonlySet<string> = new Set(['name', 'description', 'access']);
export const APP_EDIT_FIELDS: ReadonlySet<string> = new Set(['name', 'description']);
