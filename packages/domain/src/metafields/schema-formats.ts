import type { Format, FormatDefinition } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import formatsPlugin, { type FormatName } from 'ajv-formats';
import { RE2JS } from 're2js';
import { compileSchemaPattern, isSchemaPattern } from './compile-regex';
import { isDateText } from './parse-scalars';
import type { DfaAllowance } from './match-dfa';
import { PATTERN_COMPILE_UNITS_PER_INSTRUCTION, spend } from './schema-check-budget';

// Patterns and formats of `schema` rules on RE2 (decisions §8.11): a user's pattern never reaches JS RegExp.

/**
 * The schema being compiled (compile-schema): its patterns share one DFA allowance and add up the
 * memory they hold. Compiles are synchronous and never nested, so one slot serves.
 */
export interface PatternSession {
  readonly allowance: DfaAllowance;
  bytes: number;
}
let session: PatternSession | undefined;

/** Runs `compile` with its patterns counted in `counted`. */
export function withPatternSession<T>(counted: PatternSession, compile: () => T): T {
  session = counted;
  try {
    return compile();
  } finally {
    session = undefined;
  }
}

export const RE2_ENGINE: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = compileSchemaPattern(pattern, { allowance: session?.allowance });
    // Every pattern was checked before compiling (see markSchema); this cannot fail.
    if (!compiled.ok) throw new Error(`pattern ${pattern}: ${compiled.message}`);
    if (session) session.bytes += compiled.pattern.bytes;
    const { test, unitsPerChar } = compiled.pattern;
    // Ajv shares compiled patterns by this key, so it must identify the pattern. Every search
    // (`pattern` on a string, each `patternProperties` pattern on each key) is charged before it
    // runs, at the measured rate of the engine that runs it (decisions §8.11).
    return {
      test: (s: string) => {
        spend(unitsPerChar * s.length);
        return test(s);
      },
      toString: () => `/${pattern}/${flags}`,
    };
  },
  { code: 're2js' },
);

const FORMAT_NAMES: readonly FormatName[] = [
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
];

let formats: Record<string, Format> | undefined;

// ajv-formats' full formats, with `regex` checked by RE2 (its own uses `new RegExp` on the data)
// and, where RE2 can run them, the library's expressions moved to RE2 too. The `regex` format
// compiles the data: it spends on the budget before compiling (decisions §8.11's program bound
// applies to it too).
export function schemaFormats(): Record<string, Format> {
  if (formats !== undefined) return formats;
  const out: Record<string, Format> = {
    regex: (s: string) => isSchemaPattern(s, (units) => spend(PATTERN_COMPILE_UNITS_PER_INSTRUCTION * units)),
  };
  for (const name of FORMAT_NAMES) {
    const format = formatsPlugin.get(name, 'full');
    out[name] = format instanceof RegExp ? (toRe2Format(format) ?? format) : format;
  }
  // The same verdicts as ajv-formats' `date` (schema-formats.property.test.ts), without the
  // captures of a regular expression per value; its comparison (formatMinimum...) is kept.
  const date = out['date'];
  if (typeof date === 'object' && !(date instanceof RegExp)) out['date'] = { ...(date as FormatDefinition<string>), validate: isDateText };
  formats = out;
  return out;
}

function toRe2Format(re: RegExp): ((s: string) => boolean) | undefined {
  try {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(re), re.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    return (s) => compiled.test(s);
  } catch {
    return undefined;
  }
}
