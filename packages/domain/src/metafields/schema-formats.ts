import type { Format } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import formatsPlugin, { type FormatName } from 'ajv-formats';
import { RE2JS } from 're2js';
import { compileSchemaPattern, isSchemaPattern } from './compile-regex';
import { PATTERN_COMPILE_UNITS_PER_INSTRUCTION, spend } from './schema-check-budget';

// Patterns and formats of `schema` rules on RE2 (decisions §8.11): a user's pattern never reaches JS RegExp.

export const RE2_ENGINE: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = compileSchemaPattern(pattern);
    // Every pattern was checked before compiling (see markSchema); this cannot fail.
    if (!compiled.ok) throw new Error(`pattern ${pattern}: ${compiled.message}`);
    const { test } = compiled.pattern;
    // Ajv shares compiled patterns by this key, so it must identify the pattern.
    return { test, toString: () => `/${pattern}/${flags}` };
  },
  { code: 're2js' },
);

const FORMAT_NAMES: readonly FormatName[] = [
  'date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference',
  'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid', 'json-pointer',
  'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double',
  'password', 'binary',
];

let formats: Record<string, Format> | undefined;

// ajv-formats' full formats, with `regex` checked by RE2 (its own uses `new RegExp` on the data)
// and, where RE2 can run them, the library's expressions moved to RE2 too. The `regex` format
// compiles the data: it spends on the budget before compiling (decisions §8.11's program bound
// applies to it too).
export function schemaFormats(): Record<string, Format> {
  if (formats !== undefined) return formats;
  const out: Record<string, Format> = { regex: (s: string) => isSchemaPattern(s, (units) => spend(PATTERN_COMPILE_UNITS_PER_INSTRUCTION * units)) };
  for (const name of FORMAT_NAMES) {
    const format = formatsPlugin.get(name, 'full');
    out[name] = format instanceof RegExp ? (toRe2Format(format) ?? format) : format;
  }
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

