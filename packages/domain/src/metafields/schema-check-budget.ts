import { _, type KeywordCxt, type KeywordDefinition } from 'ajv';
import N from 'ajv/dist/compile/names';

// The work budget of one `schema` rule check (see compile-schema): validation work grows with
// schema x value and, through `$ref`s, without bound, so every subschema carries a counting keyword
// and a check that would spend more than SCHEMA_CHECK_BUDGET units is stopped.

/**
 * Units of work one value's check may spend (see `spend`): at most about 1.3 ns each on the
 * costliest shapes measured (Node 20, one core, warm), so a check is stopped after about 80 ms. A
 * 121 KB value of 1,600 records checked against a schema of a dozen subschemas spends about a
 * fifth of it. (The first check of a definition in a process also pays V8's compile of the
 * generated code: about 0.1 s for the largest schemas.)
 */
export const SCHEMA_CHECK_BUDGET = 60_000_000;

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

// The work budget of one check. Checks are synchronous and never nested, so one counter serves.

let remaining = 0;
let budget = SCHEMA_CHECK_BUDGET;
/** Only a value's check spends: the meta-schema's check of a schema at definition time does not. */
let metering = false;

/** Units the last check spent (for the calibration tests); another budget for the next checks. */
export const schemaCheckMeter = {
  spent: (): number => budget - remaining,
  setBudget: (units: number): void => {
    budget = units;
  },
};

class BudgetExceeded extends Error {}

export function spend(units: number): void {
  if (!metering) return;
  remaining -= units;
  if (remaining < 0) throw new BudgetExceeded();
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

function spendOnApplication(fixed: number, perItem: number, perChar: number, data: unknown): void {
  spend(perItem === 0 && perChar === 0 ? fixed : fixed + dataUnits(perItem, perChar, data));
}

// A code keyword: one plain call in the generated code (a `validate` keyword costs an allocation
// and a wrapper per application, more than many keywords it counts).
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
    const charge = gen.scopeValue('func', { ref: spendOnApplication });
    gen.code(_`${charge}(${fixed}, ${perItem}, ${perChar}, ${data})`);
  },
};


/**
 * Runs one value's check on a fresh budget; `tooCostly` when it ran out (or out of stack: a schema
 * that recurses in place through `$ref`).
 */
export function metered<T>(check: () => T, tooCostly: T): T {
  remaining = budget;
  metering = true;
  try {
    return check();
  } catch (e) {
    if (e instanceof BudgetExceeded || e instanceof RangeError) return tooCostly;
    throw e;
  } finally {
    metering = false;
  }
}
