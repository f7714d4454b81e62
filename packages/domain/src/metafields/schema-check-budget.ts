import { _, type KeywordCxt, type KeywordDefinition } from 'ajv';
import N from 'ajv/dist/compile/names';

// The work budget of one value's check. Searches (the `regex` rule, a schema's patterns) cost their
// measured rate per character (compile-regex), and `schema` rule work grows with schema x value and,
// through `$ref`s, without bound, so every subschema carries a counting keyword: a check that would
// spend more than VALUE_CHECK_BUDGET units is stopped and the value refused as too costly to check.
// The units a value spent are reported to the caller, which bounds a request's or a re-check
// step's total (decisions §8.11, §8.12).

/**
 * Units of work one value's check may spend (see `spend`): at most about 1.3 ns each on the
 * costliest shapes measured (Node 20, one core, warm), so a check is stopped after about 80 ms. A
 * 121 KB value of 1,600 records checked against a schema of a dozen subschemas spends about a
 * fifth of it. (The first check of a definition in a process also pays V8's compile of the
 * generated code: about 0.1 s for the largest schemas.)
 */
export const VALUE_CHECK_BUDGET = 60_000_000;
/**
 * Units the values of one request (a bulk set of 25, say), or one step of the background re-check,
 * may spend together: ten values at their worst, about 0.8 s of one core. Checked before each value
 * (so at most one value's budget more is spent); the caller yields to the event loop between values,
 * so no single value's check (at most VALUE_CHECK_BUDGET) holds it longer than one value.
 */
export const REQUEST_CHECK_BUDGET = 10 * 60_000_000;
/** The caller yields to the event loop once the values it judged since the last yield spent this. */
export const YIELD_EVERY_UNITS = 4_000_000;
/** The budget of a `schema` rule check: the value's (a schema check is part of it). */
export const SCHEMA_CHECK_BUDGET = VALUE_CHECK_BUDGET;
/** Every value's check spends this per character of its text (reading and the basic check). */
export const VALUE_UNITS_PER_CHAR = 4;

// What one application of a subschema costs, in units of about a nanosecond (calibrated by
// measurement on the costliest shapes, see the tests): a fixed part per application (Ajv's code
// for a subschema, a `propertyNames` subschema per key costing the most), per item of the
// subschema's own content (keywords, listed properties, enum values...), per pattern search and
// format call; and, for keywords that read all of the data, per item of it (array items, object
// keys) and per character (string length, key lengths), times the pattern's program size where a
// pattern searches them.
export const APPLICATION_UNITS = 800;
export const OWN_ITEM_UNITS = 24;
export const PATTERN_TEST_UNITS = 800;
export const FORMAT_CALL_UNITS = 800;
export const FORMAT_UNITS_PER_CHAR = 24;
export const LENGTH_UNITS_PER_CHAR = 4;
export const DATA_ITEM_UNITS = 40;
/** uniqueItems: per item, and over objects or arrays per character of their canonical JSON. */
export const UNIQUE_ITEM_UNITS = 400;
export const CANONICAL_UNITS_PER_CHAR = 64;
/** The regex format compiles the data: per instruction of its estimated program. */
export const PATTERN_COMPILE_UNITS_PER_INSTRUCTION = 1500;

// The work budget of one check. Checks are synchronous and a value's check is never nested in
// another's, so one counter serves. Outside a check nothing is counted: `left` is then Infinity,
// which no charge brings down, so a charge is one subtraction and one comparison either way (the
// counting keyword's code does both inline, see COST).

/** Units left to the check in progress (below 0 once a charge went past the budget). */
const meter = { left: Number.POSITIVE_INFINITY };
/** Units spent by work that was done when the budget first ran out (a refused charge is not work done), or -1. */
let doneWhenStopped = -1;
let budget = VALUE_CHECK_BUDGET;
/** Only a value's check spends: the meta-schema's check of a schema at definition time does not. */
let metering = false;
/** `left` when the last check ended (for the calibration tests). */
let leftAtEnd = 0;

/** Units the last check spent (for the calibration tests); another budget for the next checks. */
export const schemaCheckMeter = {
  spent: (): number => budget - (metering ? meter.left : leftAtEnd),
  setBudget: (units: number): void => {
    budget = units;
  },
};

class BudgetExceeded extends Error {}

function start(): void {
  meter.left = budget;
  doneWhenStopped = -1;
  metering = true;
}

function stop(): void {
  metering = false;
  leftAtEnd = meter.left;
  meter.left = Number.POSITIVE_INFINITY;
}

/** A charge of `units` took `left` below 0: the check stops there (that charge is not work done). */
function overrun(units: number): never {
  if (doneWhenStopped < 0) doneWhenStopped = budget - (meter.left + units);
  throw new BudgetExceeded();
}

export function spend(units: number): void {
  if ((meter.left -= units) < 0) overrun(units);
}

/**
 * Spends `units` if that many remain and answers true; otherwise spends everything left (so the
 * rest of the value's check is refused too) and answers false. Outside a metered check: true.
 */
export function trySpend(units: number): boolean {
  if (units > meter.left) {
    if (doneWhenStopped < 0) doneWhenStopped = budget - meter.left;
    meter.left = -1;
    return false;
  }
  meter.left -= units;
  return true;
}

/** Units for the data of one application: per item (array items, object keys) and per character (string length, key lengths). */
function dataUnits(perItem: number, perChar: number, data: unknown): number {
  if (typeof data === 'string') return perChar * data.length;
  if (Array.isArray(data)) return perItem * data.length;
  if (data !== null && typeof data === 'object') {
    let items = 0;
    let chars = 0;
    for (const key in data) {
      items++;
      chars += key.length;
    }
    return perItem * items + perChar * chars;
  }
  return 0;
}

/** The counting keyword every subschema gets: [fixed units, units per data item, units per data character]. */
export const COST_KEYWORD = 'x-platform-check-cost';

// A code keyword: the charge is written into the generated code, `if ((meter.left -= units) < 0)`,
// with a call only for the units of an object's keys (a `validate` keyword costs an allocation and
// a wrapper per application, more than many keywords it counts).
//
// It also stops at the first error. Ajv runs with allErrors (see options), and collecting every
// error of a badly invalid value is unbounded work and memory (10 million errors took 30 s). Where
// a subschema is not inside anyOf, oneOf, not, if or contains (whose failed branches are expected),
// an error already counted decides the result: the function returns at once, as Ajv does without
// allErrors, so the first error is the one reported.
export const COST: KeywordDefinition = {
  keyword: COST_KEYWORD,
  schemaType: 'array',
  errors: false,
  code(cxt: KeywordCxt) {
    const { gen, data, it } = cxt;
    const [fixed, perItem, perChar] = cxt.schema as [number, number, number];
    if (it.compositeRule !== true) {
      gen.if(_`${N.errors} > 0`, () => {
        gen.assign(_`${it.validateName}.errors`, N.vErrors);
        gen.return(_`false`);
      });
    }
    const left = gen.scopeValue('obj', { ref: meter });
    const stopAt = gen.scopeValue('func', { ref: overrun });
    if (perItem === 0 && perChar === 0) {
      gen.if(_`(${left}.left -= ${fixed}) < 0`, () => gen.code(_`${stopAt}(${fixed})`));
      return;
    }
    const units = gen.const(
      'units',
      _`typeof ${data} == "string" ? ${fixed} + ${perChar} * ${data}.length : ${fixed} + ${gen.scopeValue('func', { ref: dataUnits })}(${perItem}, ${perChar}, ${data})`,
    );
    gen.if(_`(${left}.left -= ${units}) < 0`, () => gen.code(_`${stopAt}(${units})`));
  },
};

/**
 * Runs a schema's compiled check of `data` on what remains of the value's budget (a fresh budget
 * when called outside a value's check); undefined when it ran out (or out of stack: a schema that
 * recurses in place through `$ref`). The check and its data rather than a closure: one less
 * allocation per value.
 */
export function metered(check: (data: unknown) => boolean, data: unknown): boolean | undefined {
  if (!metering) {
    start();
    try {
      return runCounted(check, data);
    } finally {
      stop();
    }
  }
  return runCounted(check, data);
}

function runCounted(check: (data: unknown) => boolean, data: unknown): boolean | undefined {
  try {
    return check(data);
  } catch (e) {
    if (e instanceof BudgetExceeded || e instanceof RangeError) return undefined;
    throw e;
  }
}

/**
 * Starts one value's whole check on a fresh budget of VALUE_CHECK_BUDGET units; `endValueCheck`
 * ends it and answers the work it did (at most the budget: a search refused for lack of budget was
 * not run, and costs nothing). A pair of calls rather than a callback: every value checked goes
 * through here, and a closure per value costs more than many of the checks.
 */
export function beginValueCheck(): void {
  start();
}

export function endValueCheck(): number {
  const done = doneWhenStopped >= 0 ? doneWhenStopped : budget - meter.left;
  stop();
  return done;
}
