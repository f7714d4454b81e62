import { RE2JS } from 're2js';

// decisions §8.11: user patterns run on RE2 semantics (linear time, no lookaround or
// backreferences). A user's pattern never reaches JS RegExp: not the `regex` rule, not JSON
// Schema `pattern` / `patternProperties`, not the `regex` format.

export interface CompiledPattern {
  /** Searches `s` (unanchored): true when the pattern matches anywhere in it. */
  test(s: string): boolean;
}

export type PatternResult = { readonly ok: true; readonly pattern: CompiledPattern } | { readonly ok: false; readonly message: string };

/** Compiles a pattern written in RE2 syntax (the `regex` rule). */
export function compileRe2(source: string): PatternResult {
  try {
    const re = RE2JS.compile(source);
    return { ok: true, pattern: { test: (s) => re.test(s) } };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Compiles a pattern written in the ECMA-262 dialect JSON Schema uses (`\uXXXX`, `(?<name>...)`),
 * translated to RE2; throws when RE2 cannot run it.
 */
export function compileSchemaPattern(source: string): CompiledPattern {
  const re = RE2JS.compile(RE2JS.translateRegExp(source));
  return { test: (s) => re.test(s) };
}

/** The JSON Schema `regex` format: a pattern RE2 can compile. */
export function isSchemaPattern(source: string): boolean {
  try {
    RE2JS.compile(RE2JS.translateRegExp(source));
    return true;
  } catch {
    return false;
  }
}
