import type { RE2JS } from 're2js';

/*
 * The part of the DFA engine (match-dfa.ts) that reads re2js: its compiled program (instructions,
 * opcodes, empty-width flags) and the character classes a program distinguishes, so that the DFA
 * steps one class per character instead of one code point.
 */

// re2js's instruction opcodes and empty-width flags (RE2's), pinned with re2js 2.10.0 and checked
// by the differential tests against re2js itself.
export const ALT = 1;
export const ALT_MATCH = 2;
export const CAPTURE = 3;
export const EMPTY_WIDTH = 4;
export const FAIL = 5;
export const MATCH = 6;
export const NOP = 7;
export const RUNE = 8;
export const RUNE1 = 9;
export const RUNE_ANY = 10;
export const RUNE_ANY_NOT_NL = 11;

export const BEGIN_LINE = 1;
export const END_LINE = 2;
export const BEGIN_TEXT = 4;
export const END_TEXT = 8;
export const WORD_BOUNDARY = 16;
export const NO_WORD_BOUNDARY = 32;
/** A state bit beside the empty-width flags: the previous character was a word character. */
export const LAST_WORD = 64;

const FOLD_CASE = 1;
const MAX_RUNE = 0x10ffff;

export interface Inst {
  op: number;
  out: number;
  arg: number;
  runes: Int32Array;
  matchRune(r: number): boolean;
}

export interface Prog {
  inst: Inst[];
  start: number;
}

export const isWord = (r: number): boolean =>
  (r >= 0x30 && r <= 0x39) || (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a) || r === 0x5f;

/** The compiled program of a re2js pattern, if this engine can run it. */
export function programOf(re: RE2JS): Prog | undefined {
  const prog = (re as unknown as { re2Input?: { prog?: Prog } }).re2Input?.prog;
  if (!prog || !Array.isArray(prog.inst) || typeof prog.start !== 'number') return undefined;
  for (const inst of prog.inst) {
    switch (inst.op) {
      case ALT:
      case ALT_MATCH:
      case CAPTURE:
      case EMPTY_WIDTH:
      case FAIL:
      case MATCH:
      case NOP:
      case RUNE_ANY:
      case RUNE_ANY_NOT_NL:
        break;
      case RUNE:
      case RUNE1:
        if ((inst.arg & FOLD_CASE) !== 0 && inst.runes.length === 1) return undefined;
        break;
      default:
        return undefined; // lookbehind, or an opcode this engine does not know
    }
  }
  return prog;
}

/**
 * Splits the code points into classes no instruction tells apart: characters of one class match
 * the same instructions, and are equally newline or not, word character or not.
 */
export function characterClasses(prog: Prog, needsLine: boolean, needsWord: boolean): { bounds: Int32Array; latin1: Int32Array } {
  const set = new Set<number>();
  const range = (lo: number, hi: number) => {
    set.add(lo);
    if (hi < MAX_RUNE) set.add(hi + 1);
  };
  for (const inst of prog.inst) {
    if (inst.op === RUNE || inst.op === RUNE1) {
      if (inst.runes.length === 1) range(inst.runes[0]!, inst.runes[0]!);
      else for (let j = 0; j + 1 < inst.runes.length; j += 2) range(inst.runes[j]!, inst.runes[j + 1]!);
    } else if (inst.op === RUNE_ANY_NOT_NL) range(10, 10);
  }
  if (needsLine) range(10, 10);
  if (needsWord) {
    range(0x30, 0x39);
    range(0x41, 0x5a);
    range(0x5f, 0x5f);
    range(0x61, 0x7a);
  }
  set.delete(0);
  const bounds = Int32Array.from(set).sort();
  const latin1 = new Int32Array(256);
  for (let r = 0; r < 256; r++) latin1[r] = classOf(bounds, r);
  return { bounds, latin1 };
}

/** The class of `r`: how many class starts are at or below it. */
export function classOf(bounds: Int32Array, r: number): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid]! <= r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first code point of each class, the one the class is stepped with when its transition is built. */
export function representatives(bounds: Int32Array): Int32Array {
  const reps = new Int32Array(bounds.length + 1);
  for (let k = 0; k < bounds.length; k++) reps[k + 1] = bounds[k]!;
  return reps;
}
