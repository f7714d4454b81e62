import { checkRuleSet, type DefinitionReference, type NormalizedRule } from './compile-rule-set';
import { codePointLength, isSupportedType, type MetafieldType } from './define-types';
import { makeIssue, type Issue } from './format-issues';
import {
  ACCESS_ADMIN_VALUES,
  DESCRIPTION_MAX_LENGTH,
  KEY_LENGTH,
  NAME_CHARS,
  NAME_MAX_LENGTH,
  NAMESPACE_LENGTH,
  OWNER_RESOURCES,
  type AccessAdmin,
  type OwnerResource,
} from './define-definition-fields';
import { APP_NAMESPACE_PREFIX, parseNamespace, isAppNamespaceLookalike } from './parse-namespace';

// A metafield definition as a whole (spec "Metafield definition", decisions §8.1-8.3), every
// problem reported at once.

export {
  ACCESS_ADMIN_VALUES,
  DESCRIPTION_MAX_LENGTH,
  KEY_LENGTH,
  NAME_CHARS,
  NAME_MAX_LENGTH,
  NAMESPACE_LENGTH,
  OWNER_RESOURCES,
  type AccessAdmin,
  type OwnerResource,
} from './define-definition-fields';
export { APP_NAMESPACE_PREFIX };

/** What a create request carries; fields are unknown so that a wrong JSON type is reported, not thrown. */
export interface DefinitionInput {
  readonly owner_resource?: unknown;
  readonly namespace?: unknown;
  readonly key?: unknown;
  readonly name?: unknown;
  readonly description?: unknown;
  readonly type?: unknown;
  readonly validations?: unknown;
  readonly access?: unknown;
}

export interface NormalizedDefinition {
  readonly owner_resource: OwnerResource;
  /** As sent: `$app:x` stays so; the API stores it as `app--{app_id}--x` (see expandAppNamespace and parseNamespace). */
  readonly namespace: string;
  readonly key: string;
  readonly name: string;
  /** null when never given; `""` when given (or cleared) empty. */
  readonly description: string | null;
  readonly type: MetafieldType;
  readonly validations: readonly NormalizedRule[];
  /** null when not set (decisions §8.7 gives the behaviour of an unset access). */
  readonly access: { readonly admin: AccessAdmin } | null;
}

export type DefinitionResult =
  | {
      readonly ok: true;
      readonly value: NormalizedDefinition;
      /** Metaobject definitions the rules name; the caller checks they exist (decisions §8.14). */
      readonly references: readonly DefinitionReference[];
    }
  | { readonly ok: false; readonly issues: Issue[] };

const BLANK = "can't be blank";
const NOT_A_STRING = 'must be a string';

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function requiredText(field: string, value: unknown, issues: Issue[]): string | undefined {
  if (isBlank(value)) issues.push(makeIssue(field, BLANK));
  else if (typeof value !== 'string') issues.push(makeIssue(field, NOT_A_STRING));
  else return value;
  return undefined;
}

function checkLength(field: string, value: string, min: number, max: number, issues: Issue[]): void {
  const length = codePointLength(value);
  if (length < min) issues.push(makeIssue(field, `is too short (minimum is ${min} characters)`));
  if (length > max) issues.push(makeIssue(field, `is too long (maximum is ${max} characters)`));
}

function checkHandle(field: string, value: string, length: { min: number; max: number }, issues: Issue[]): void {
  checkLength(field, value, length.min, length.max, issues);
  if (value.length > 0 && !NAME_CHARS.test(value)) {
    issues.push(makeIssue(field, 'can only contain letters, digits, hyphens and underscores'));
  }
}

function checkOwner(value: unknown, issues: Issue[]): OwnerResource | undefined {
  const owner = requiredText('owner_resource', value, issues);
  if (owner === undefined) return undefined;
  if ((OWNER_RESOURCES as readonly string[]).includes(owner)) return owner as OwnerResource;
  issues.push(makeIssue('owner_resource', `is not included in the list (${OWNER_RESOURCES.join(', ')})`));
  return undefined;
}

// decisions §8.2: 3-255 letters, digits, `-`, `_`, or `$app:` followed by such a name. The stored
// spelling of an app namespace, `app--{id}--x`, is that same namespace: its `x` is what is checked,
// so whatever create accepts in either spelling stays valid when read back in the other.
function checkNamespace(value: unknown, issues: Issue[]): string | undefined {
  const namespace = requiredText('namespace', value, issues);
  if (namespace === undefined) return undefined;
  if (isAppNamespaceLookalike(namespace)) {
    issues.push(makeIssue('namespace', 'looks like an app-reserved namespace but is not spelled app--{app id}--{name}; use $app:{name}'));
    return undefined;
  }
  const before = issues.length;
  checkHandle('namespace', parseNamespace(namespace).name, NAMESPACE_LENGTH, issues);
  return issues.length === before ? namespace : undefined;
}

function checkKey(value: unknown, issues: Issue[]): string | undefined {
  const key = requiredText('key', value, issues);
  if (key === undefined) return undefined;
  const before = issues.length;
  checkHandle('key', key, KEY_LENGTH, issues);
  return issues.length === before ? key : undefined;
}

function checkName(value: unknown, issues: Issue[]): string | undefined {
  const name = requiredText('name', value, issues);
  if (name === undefined) return undefined;
  if (name.trim() === '') {
    issues.push(makeIssue('name', BLANK));
    return undefined;
  }
  const before = issues.length;
  checkLength('name', name, 1, NAME_MAX_LENGTH, issues);
  return issues.length === before ? name : undefined;
}

// Not given (or null): null. Given, even as "": that text (spec, update rule 3: "" clears the stored
// text, so an update answers "", which is not the same as never having had one).
function checkDescription(value: unknown, issues: Issue[]): string | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    issues.push(makeIssue('description', NOT_A_STRING));
    return undefined;
  }
  const before = issues.length;
  checkLength('description', value, 0, DESCRIPTION_MAX_LENGTH, issues);
  return issues.length === before ? value : undefined;
}

function checkType(value: unknown, issues: Issue[]): MetafieldType | undefined {
  const type = requiredText('type', value, issues);
  if (type === undefined) return undefined;
  if (isSupportedType(type)) return type;
  issues.push(makeIssue('type', `'${type}' is not a supported type`));
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// `access` null or absent, or `{admin}` with admin one of the five values; an absent, null or empty
// admin means "not set", like a null access.
function checkAccess(value: unknown, issues: Issue[]): NormalizedDefinition['access'] | undefined {
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) {
    issues.push(makeIssue('access', 'must be an object with admin, or null'));
    return undefined;
  }
  const admin = value['admin'];
  if (isBlank(admin)) return null;
  if (typeof admin === 'string' && (ACCESS_ADMIN_VALUES as readonly string[]).includes(admin)) {
    return { admin: admin as AccessAdmin };
  }
  issues.push(makeIssue('access.admin', `is not included in the list (${ACCESS_ADMIN_VALUES.join(', ')})`));
  return undefined;
}

/** Validates a definition as sent on create; reports every problem, or returns it normalized. */
export function validateDefinition(input: DefinitionInput): DefinitionResult {
  const issues: Issue[] = [];
  if (!isRecord(input)) return { ok: false, issues: [makeIssue('definition', 'must be an object')] };
  const owner = checkOwner(input.owner_resource, issues);
  const namespace = checkNamespace(input.namespace, issues);
  const key = checkKey(input.key, issues);
  const name = checkName(input.name, issues);
  const description = checkDescription(input.description, issues);
  const type = checkType(input.type, issues);
  const rules = checkRuleSet(type ?? null, input.validations, issues);
  const access = checkAccess(input.access, issues);
  if (
    issues.length > 0 ||
    owner === undefined ||
    namespace === undefined ||
    key === undefined ||
    name === undefined ||
    description === undefined ||
    type === undefined ||
    rules === undefined ||
    access === undefined
  ) {
    return { ok: false, issues };
  }
  return {
    ok: true,
    value: { owner_resource: owner, namespace, key, name, description, type, validations: rules.rules, access },
    references: rules.references,
  };
}
