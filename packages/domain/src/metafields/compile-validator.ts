import { checkRuleSet, type CompiledRuleSet } from './compile-rule-set';
import { rejectsEmptyValue } from './compare-version';
import { NO_REFERENCES, checkMetaobjectReferences, collectMetaobjectReferences, type MetaobjectReference } from './check-references';
import type { RuleInput } from './define-rules';
import type { ElementCheck } from './define-checks';
import { checkedTypeOf, isListType, isSupportedType } from './define-types';
import type { EmptyValue, ListValue, ParsedValue, ScalarValue } from './define-values';
import { InvalidDefinitionError, makeIssue, withRule, type Issue, type Result } from './format-issues';
import { valueParserFor, type ValueParser } from './parse-value';
import { beginValueCheck, endValueCheck, trySpend, VALUE_UNITS_PER_CHAR } from './schema-check-budget';

// Both validation levels for values of one definition (spec "Rules on the array" 4-6), compiled
// once: the basic check, then, only when it passes, the rules.

export interface ValidateContext {
  /**
   * The API version of the request (decisions §2.6), which decides whether `""` is refused. `null`
   * judges the value against the definition alone, as the background re-check does (decisions
   * §8.12): emptiness is a rule of the version that wrote a value, so a stored `""` (only ever
   * accepted by a version before v20260901) stays valid whatever the definition's rules become.
   */
  readonly version: string | null;
  /**
   * Optional lookup for callers that already hold the store's metaobjects: when given, references
   * are checked inline. Otherwise check `references` of the result in one query afterwards.
   */
  readonly metaobjectExists?: (metaobjectId: string, definitionId: string | null) => boolean;
  /**
   * Told the work units the value's check spent (check-budget.ts): a caller bounds the total of a
   * request or of a re-check step with it. One value never spends much more than VALUE_CHECK_BUDGET
   * (past it the value is refused as too costly to check).
   */
  readonly meter?: CheckMeter;
}

/** Work units spent by the checks it was given to (see ValidateContext.meter). */
export interface CheckMeter {
  spent: number;
}

export type ValueResult =
  | {
      readonly ok: true;
      readonly value: ParsedValue | EmptyValue;
      /** Metaobjects the value names (metaobject_reference types only); the caller checks they exist. */
      readonly references: readonly MetaobjectReference[];
    }
  | { readonly ok: false; readonly issues: Issue[] };

export interface ValueValidator {
  (raw: string, ctx: ValidateContext): ValueResult;
  /** Memory the compiled validator holds, estimated in bytes (for caches bounded by memory). */
  readonly bytes: number;
}

/** What compiling the basic check and a definition's simple rules holds: a few closures. */
const VALIDATOR_BASE_BYTES = 2_000;

export interface ValidatorDefinition {
  readonly type: string;
  readonly validations?: readonly RuleInput[] | null;
}

/** The context of a judgement against the definition alone, without a request's version (the re-check). */
export const RULES_ONLY: ValidateContext = Object.freeze({ version: null });

const EMPTY: ValueResult = Object.freeze({ ok: true, value: Object.freeze({ kind: 'empty' }), references: NO_REFERENCES });

// Issues of the call in progress; copied out only on failure so a passing value allocates no list.
// Nothing below calls back into user code before the copy, so reuse is safe.
const scratch: Issue[] = [];

function build(set: CompiledRuleSet): ValueValidator {
  const judge = judgeWith(set);
  const validate = (raw: string, ctx: ValidateContext): ValueResult => {
    beginValueCheck();
    let result: ValueResult;
    try {
      // Reading the text and the basic check, before any rule.
      trySpend(VALUE_UNITS_PER_CHAR * raw.length);
      result = judge(raw, ctx);
    } finally {
      const spent = endValueCheck();
      if (ctx.meter !== undefined) ctx.meter.spent += spent;
    }
    return result;
  };
  return Object.assign(validate, { bytes: VALIDATOR_BASE_BYTES + set.bytes });
}

type Judge = (raw: string, ctx: ValidateContext) => ValueResult;
type Accept = (value: ParsedValue, ctx: ValidateContext) => ValueResult;

// decisions §2.6: from v20260901 an empty value is refused; before it, accepted without rules.
function emptyValue(ctx: ValidateContext): ValueResult {
  return ctx.version !== null && rejectsEmptyValue(ctx.version) ? { ok: false, issues: [makeIssue('value', "can't be blank")] } : EMPTY;
}

function refused(): ValueResult {
  // One call that copies and empties (setting an array's length is a call into the runtime).
  return { ok: false, issues: scratch.splice(0) };
}

// A list and a single value are judged by two functions, each small enough for V8 to inline what
// it calls: every value written goes through one of them.
function judgeWith(set: CompiledRuleSet): Judge {
  const parse = valueParserFor(set.type);
  const checks = set.checks;
  const accept = accepting(set);
  return isListType(set.type) ? judgeList(parse, checks, set, accept) : judgeOne(parse, checks, accept);
}

function judgeOne(parse: ValueParser, checks: readonly ElementCheck[], accept: Accept): Judge {
  const checkCount = checks.length;
  return (raw, ctx) => {
    if (raw === '') return emptyValue(ctx);
    // Empty unless an earlier call threw midway; setting length costs even when it changes nothing.
    if (scratch.length !== 0) scratch.length = 0;
    const value = parse(raw, scratch);
    if (value === undefined) return refused();
    for (let c = 0; c < checkCount; c++) {
      const failure = (checks[c] as ElementCheck)(value as ScalarValue);
      if (failure !== null) scratch.push(withRule({ field: failure.field, message: failure.message }, failure.problem));
    }
    return scratch.length > 0 ? refused() : accept(value, ctx);
  };
}

function judgeList(parse: ValueParser, checks: readonly ElementCheck[], set: CompiledRuleSet, accept: Accept): Judge {
  const checkCount = checks.length;
  const { listMin, listMax } = set;
  const listMinText = `has a minimum of ${listMin} elements (rule list.min)`;
  const listMaxText = `has a maximum of ${listMax} elements (rule list.max)`;
  const listMinRule = { name: 'list.min', kind: 'broken', bound: String(listMin) } as const;
  const listMaxRule = { name: 'list.max', kind: 'broken', bound: String(listMax) } as const;
  return (raw, ctx) => {
    if (raw === '') return emptyValue(ctx);
    if (scratch.length !== 0) scratch.length = 0;
    const value = parse(raw, scratch);
    if (value === undefined) return refused();
    const elements = (value as ListValue).elements;
    if (listMin !== null && elements.length < listMin) scratch.push(makeIssue('value', listMinText, listMinRule));
    if (listMax !== null && elements.length > listMax) scratch.push(makeIssue('value', listMaxText, listMaxRule));
    for (let i = 0; checkCount > 0 && i < elements.length; i++) {
      const element = elements[i];
      // Empty elements skip the element rules (decisions §2.6).
      if (element === null || element === undefined) continue;
      for (let c = 0; c < checkCount; c++) {
        const failure = (checks[c] as ElementCheck)(element);
        if (failure !== null) scratch.push(makeIssue(`value[${i}]${failure.suffix}`, failure.text, failure.problem));
      }
    }
    return scratch.length > 0 ? refused() : accept(value, ctx);
  };
}

/** What a value that passed its checks answers: with the metaobjects it names, for a reference type. */
function accepting(set: CompiledRuleSet): Accept {
  if (checkedTypeOf(set.type) !== 'metaobject_reference') return (value) => ({ ok: true, value, references: NO_REFERENCES });
  const definitionId = set.metaobjectDefinitionId;
  return (value, ctx) => {
    const references = collectMetaobjectReferences(value, definitionId);
    const exists = ctx.metaobjectExists;
    if (exists !== undefined) {
      const missing = references.filter((r) => !exists(r.id, r.definitionId));
      if (missing.length > 0) {
        return { ok: false, issues: checkMetaobjectReferences(missing, () => undefined) };
      }
    }
    return { ok: true, value, references };
  };
}

/** Compiles a validator, or returns the definition's issues (the same `validateDefinition` reports). */
export function tryCompileValidator(definition: ValidatorDefinition): Result<ValueValidator> {
  const issues: Issue[] = [];
  if (!isSupportedType(definition.type)) {
    issues.push(makeIssue('type', `'${String(definition.type)}' is not a supported type`));
    checkRuleSet(null, definition.validations, issues);
    return { ok: false, issues };
  }
  const set = checkRuleSet(definition.type, definition.validations, issues);
  return set === undefined ? { ok: false, issues } : { ok: true, value: build(set) };
}

/**
 * Compiles a definition (type and rules) into a value validator: regexes, schemas, decimals and
 * converted bounds are prepared here, once. Callers cache the result per definition version.
 * Throws InvalidDefinitionError for a definition `validateDefinition` would refuse.
 */
export function compileValidator(definition: ValidatorDefinition): ValueValidator {
  const compiled = tryCompileValidator(definition);
  if (!compiled.ok) throw new InvalidDefinitionError(compiled.issues);
  return compiled.value;
}
