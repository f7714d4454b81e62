import { RE2JS } from 're2js';
import { estimateProgramSize } from './estimate-regex-size';
import { compileDfa, type DfaAllowance } from './match-dfa';

// decisions §8.11: user patterns run on RE2 semantics (linear time, no lookaround or
// backreferences). A user's pattern never reaches JS RegExp: not the `regex` rule, not JSON
// Schema `pattern` / `patternProperties`, not the `regex` format.
//
// Linear is not cheap: a search costs up to (program size x text length), and re2js took 25 s to
// search 65,000 characters with the 60,000-instruction program of a 720-character pattern. As RE2
// refuses programs over its memory budget ("pattern too large"), patterns whose compiled program
// exceeds REGEX_MAX_PROGRAM_SIZE instructions are refused where they are defined.

/**
 * The largest program (instructions) a user pattern may compile to. Chosen by measurement (Node
 * 20, re2js 2.10, one core of the 2-core machine the guide describes): the costliest programs of
 * about this size (`[\s\S]{600}x`, `(?:[a-z]|[0-9]){600}x`, `a{0,300}x`, `(a|b)*a(a|b){600}x`,
 * the same over non-ASCII text) search the largest value, 64 KB, in at most 60 ms, 61 ms in a
 * fresh process; 1,000 instructions took up to 156 ms there. It leaves room for the common
 * length limits written as patterns (`^.{1,255}$` has 513 instructions).
 */
export const REGEX_MAX_PROGRAM_SIZE = 600;

/**
 * Patterns whose estimated program (an upper bound read from the text) exceeds this are refused
 * without being compiled: compiling costs time and memory in proportion to the program (300,000
 * instructions took half a second). Well above REGEX_MAX_PROGRAM_SIZE, so a pattern the estimate
 * overrates (it never underrates) is still compiled and judged by its exact size.
 */
export const REGEX_MAX_ESTIMATED_SIZE = 50_000;

/**
 * What a search costs, in the work units of a value's check (check-budget.ts, about a nanosecond
 * each), per character of the text searched. Measured on Node 20, re2js 2.10, the 2-core machine the
 * guide describes (CPU time, the worst of three, while the machine was busy), on the costliest
 * patterns found (bench/stress):
 *
 * - on the DFA, one table lookup per character: at most a few ns per character (characters outside
 *   Latin-1 find their class by a binary search), whatever the program;
 * - on re2js (case-folded patterns, and programs whose DFA is over its budget), every live thread of
 *   the program is stepped on every character, and the cost per character is highest on texts of a
 *   few thousand characters: up to 100 ns per instruction and character (`(?i)(a|b)*a(a|b){195}x`:
 *   60 ms on 1,000 characters, 180 ms on 5,000, 0.5 s on 64 KB; `(a|b)*a(a|b){195}x` with an `x`
 *   every 100 characters, which its DFA cannot build: 70 ms on 5,000). The program bound
 *   REGEX_MAX_PROGRAM_SIZE was first measured on the DFA alone (issue 8: that let 64 KB values take
 *   0.36 s each). Charged at 64 per instruction and character, whatever the text.
 */
export const DFA_UNITS_PER_CHAR = 6;
export const RE2JS_UNITS_PER_INSTRUCTION_CHAR = 64;

export interface CompiledPattern {
  /** Searches `s` (unanchored): true when the pattern matches anywhere in it. Charges nothing. */
  test(s: string): boolean;
  /** Instructions of the compiled program. */
  readonly size: number;
  /** Which engine searches: decided by the pattern alone when it is compiled (match-dfa). */
  readonly engine: 'dfa' | 're2js';
  /** Work units one search costs per character of the text (see DFA_UNITS_PER_CHAR). */
  readonly unitsPerChar: number;
  /** Memory the compiled pattern holds, estimated in bytes (re2js's program, the DFA's tables). */
  readonly bytes: number;
}

export type PatternResult =
  | { readonly ok: true; readonly pattern: CompiledPattern }
  /** `tooLarge`: valid syntax, but over the program bound; otherwise the engine's syntax message. */
  | { readonly ok: false; readonly message: string; readonly tooLarge: boolean };

function tooLarge(size: string): PatternResult {
  return { ok: false, tooLarge: true, message: `its compiled program has ${size} instructions (at most ${REGEX_MAX_PROGRAM_SIZE})` };
}

/**
 * Memory of re2js's compiled pattern: measured about 9 KB for a small one (the parsed syntax, the
 * program, its one-pass form and matcher caches), and about 100 bytes more per instruction.
 */
const RE2JS_BASE_BYTES = 9_000;
const RE2JS_BYTES_PER_INSTRUCTION = 100;

/**
 * Compiles RE2 syntax within the program bound; the problem as text otherwise. `dfa: false` when
 * only the verdict of compiling is wanted (the `regex` format, the program size a schema's marking
 * reads): the DFA is not built.
 */
export interface PatternOptions {
  /** false: do not build the DFA (the pattern is only judged, never searched). */
  readonly dfa?: boolean;
  /** Shared by the patterns of one schema (match-dfa). */
  readonly allowance?: DfaAllowance;
}

function compileBounded(re2Source: string, { dfa = true, allowance }: PatternOptions = {}): PatternResult {
  const estimate = estimateProgramSize(re2Source);
  if (estimate > REGEX_MAX_ESTIMATED_SIZE) return tooLarge(`more than ${REGEX_MAX_ESTIMATED_SIZE}`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(re2Source);
  } catch (e) {
    return { ok: false, tooLarge: false, message: e instanceof Error ? e.message : String(e) };
  }
  const size = re.matcher('').programSize();
  if (size > REGEX_MAX_PROGRAM_SIZE) return tooLarge(String(size));
  // The DFA answers as re2js does, an order of magnitude faster on the patterns users write; what it
  // does not run (case folding, past its budget) stays on re2js (match-dfa), charged as such.
  const bytes = RE2JS_BASE_BYTES + RE2JS_BYTES_PER_INSTRUCTION * size;
  const built = dfa ? compileDfa(re, allowance) : undefined;
  if (built)
    return { ok: true, pattern: { test: built.test, size, engine: 'dfa', unitsPerChar: DFA_UNITS_PER_CHAR, bytes: bytes + built.bytes } };
  return {
    ok: true,
    pattern: { test: (s) => re.test(s), size, engine: 're2js', unitsPerChar: RE2JS_UNITS_PER_INSTRUCTION_CHAR * size, bytes },
  };
}

/** Compiles a pattern written in RE2 syntax (the `regex` rule), within the program bound. */
export function compileRe2(source: string): PatternResult {
  return compileBounded(source);
}

/**
 * Compiles a pattern written in the ECMA-262 dialect JSON Schema uses (`\uXXXX`, `(?<name>...)`),
 * translated to RE2, within the same program bound as the `regex` rule.
 */
export function compileSchemaPattern(source: string, options: PatternOptions = {}): PatternResult {
  let translated: string;
  try {
    translated = RE2JS.translateRegExp(source);
  } catch (e) {
    return { ok: false, tooLarge: false, message: e instanceof Error ? e.message : String(e) };
  }
  return compileBounded(translated, options);
}

/**
 * The JSON Schema `regex` format: a pattern RE2 can compile within the program bound. `cost`, when
 * given, is told the work about to be done (the estimated program size) before any compiling, so
 * a schema check can stop a value holding many costly strings (see compile-schema).
 */
export function isSchemaPattern(source: string, cost?: (units: number) => void): boolean {
  // Charged before any work on the text: reading it (translation, the estimate) is linear in it.
  cost?.(source.length);
  let translated: string;
  try {
    translated = RE2JS.translateRegExp(source);
  } catch {
    return false;
  }
  cost?.(Math.min(estimateProgramSize(translated), REGEX_MAX_ESTIMATED_SIZE));
  return compileBounded(translated, { dfa: false }).ok;
}
