export {
  formatIssues,
  makeIssue,
  withRule,
  InvalidDefinitionError,
  IssuesError,
  type Issue,
  type Result,
  type RuleProblem,
} from './format-issues';
export { MERCHANT_MADE_ACCESS, merchantDefinitionIssues } from './check-merchant-definition';
export { NON_EMPTY_VALUE_SINCE, rejectsEmptyValue } from './compare-version';
export {
  METAFIELD_TYPES,
  SCALAR_TYPES,
  LIST_TYPES,
  VALUE_MAX_BYTES,
  JSON_VALUE_MAX_BYTES,
  URL_MAX_BYTES,
  LIST_MAX_ELEMENTS,
  isSupportedType,
  isListType,
  elementTypeOf,
  type MetafieldType,
  type ScalarType,
  type ListType,
  type ListElementType,
} from './define-types';
export type {
  Parsed,
  ParsedValue,
  ScalarValue,
  ListValue,
  EmptyValue,
  TextValue,
  BooleanValue,
  IntegerValue,
  DecimalValue,
  DateValue,
  DateTimeValue,
  MeasureValue,
  MeasureDimension,
  RatingValue,
  UrlValue,
  LinkValue,
  FileReferenceValue,
  FileGidType,
  MetaobjectReferenceValue,
  JsonValue,
} from './define-values';
export { BASE_UNITS, unitsOf, toBaseUnit } from './convert-units';
export { parseValue } from './parse-value';
export { RULE_NAMES, RULE_TYPES, RULE_VALUE_MAX_LENGTH, isRuleName, rulesFor, type RuleName, type RuleInput } from './define-rules';
export {
  SCHEMA_MAX_LENGTH,
  SCHEMA_MAX_DEPTH,
  SCHEMA_MAX_NODES,
  SCHEMA_MAX_NODES_UNEVALUATED,
  SCHEMA_MAX_PATTERN_PROGRAM,
  SCHEMA_MAX_PATTERNS,
  SCHEMA_VALUE_MAX_DEPTH,
  SCHEMA_CHECK_BUDGET,
  SCHEMA_DFA_BUILD_WORK,
  SCHEMA_DFA_CELLS,
} from './compile-schema';
export { REGEX_MAX_PROGRAM_SIZE, DFA_UNITS_PER_CHAR, RE2JS_UNITS_PER_INSTRUCTION_CHAR } from './compile-regex';
export { VALUE_CHECK_BUDGET, VALUE_UNITS_PER_CHAR, REQUEST_CHECK_BUDGET, YIELD_EVERY_UNITS } from './schema-check-budget';
export { DEFINITION_MAX_BYTES, type DefinitionReference, type NormalizedRule } from './compile-rule-set';
export {
  compileValidator,
  tryCompileValidator,
  RULES_ONLY,
  type CheckMeter,
  type ValidateContext,
  type ValueResult,
  type ValueValidator,
  type ValidatorDefinition,
} from './compile-validator';
export { checkMetaobjectReferences, checkDefinitionReferences, referencedIds, type MetaobjectReference } from './check-references';
export {
  validateDefinition,
  OWNER_RESOURCES,
  ACCESS_ADMIN_VALUES,
  type OwnerResource,
  type AccessAdmin,
  type DefinitionInput,
  type DefinitionResult,
  type NormalizedDefinition,
} from './validate-definition';
export { METAOBJECT_HANDLE_LENGTH, METAOBJECT_NAME_LENGTH, METAOBJECT_TYPE_LENGTH, NAME_CHARS } from './define-definition-fields';
export { validateDefinitionUpdate, type DefinitionPatch, type DefinitionUpdateResult } from './validate-definition-update';
export {
  APP_NAMESPACE_PREFIX,
  expandAppNamespace,
  appIdOfNamespace,
  isAppNamespaceLookalike,
  parseNamespace,
  type NamespaceParts,
} from './parse-namespace';
export {
  effectiveAccess,
  resolveAccess,
  type AccessAction,
  type AccessCaller,
  type AccessDecision,
  type AccessReason,
  type AccessTarget,
} from './resolve-access';
export { isAllowed, accessOutcome, type DefinitionActor, type DefinitionAction } from './resolve-permissions';
