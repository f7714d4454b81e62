import type { RE2JS } from 're2js';
import {
  ALT,
  ALT_MATCH,
  BEGIN_LINE,
  BEGIN_TEXT,
  CAPTURE,
  EMPTY_WIDTH,
  END_LINE,
  END_TEXT,
  FAIL,
  LAST_WORD,
  MATCH,
  NOP,
  NO_WORD_BOUNDARY,
  type Prog,
  RUNE,
  RUNE1,
  RUNE_ANY,
  RUNE_ANY_NOT_NL,
  WORD_BOUNDARY,
  characterClasses,
  classOf,
  isWord,
  programOf,
  representatives,
} from './dfa-program';

/*
 * decisions §8.11: a faster engine for the patterns users write most, with the same answers and the
 * same linear-time bound as RE2. re2js compiles the pattern (its syntax, its checks, its program);
 * this runs that program as a DFA specialised to one question, "does the pattern match anywhere?",
 * over the code points of a JavaScript string: one table lookup per character.
 *
 * The whole DFA (every state reachable on any text, every character class) is built when the
 * pattern is compiled, within a budget of states, cells and work; a program that needs more stays
 * on re2js for good, as do programs this does not handle (case folding, lookbehind). So which engine
 * searches is decided by the pattern alone, never by the texts searched before: the cost charged
 * for a search (compile-regex) is the same in every process, and so is a verdict of "too costly".
 */

/** Table entries: a state index, or one of these. */
const UNBUILT = -1;
const MATCHED = -2;
/** An anchored program with nothing left to try: no later character can bring a match. */
const DEAD = -3;

/** States a pattern may build before it is left to re2js: bounds memory per compiled pattern. */
const MAX_STATES = 2048;
/** Transition-table cells (states x character classes) one pattern may hold: 1 MB. */
export const DFA_MAX_CELLS = 1 << 18;
/**
 * Instructions visited while building the whole DFA (every state, every character class): at most
 * about 30 ms on the machine the guide describes. Past it the pattern stays on re2js.
 */
const MAX_BUILD_WORK = 400_000;

class Dfa {
  private readonly classes: { bounds: Int32Array; latin1: Int32Array };
  private readonly reps: Int32Array;
  private readonly numClasses: number;
  /** Whether matches can start only at the beginning of the text (the program begins with `^`). */
  private readonly anchored: boolean;
  private readonly needsLine: boolean;
  private readonly needsWord: boolean;
  private ids = new Map<string, number>();
  private pcs: Int32Array[] = [];
  private readonly flags: number[] = [];
  /**
   * Every state's transitions in one table, a row of numClasses cells per state: the next state's
   * row offset (state x numClasses), or UNBUILT, MATCHED or DEAD.
   */
  private table = new Int32Array(0);
  /** Per state: 0 not known yet, 1 no match at the end of the text, 2 a match there. */
  private readonly endVerdicts: number[] = [];
  private readonly start: number;
  /** Marks of the instructions a closure has visited: `visited[pc] === epoch` (no allocation per closure). */
  private readonly visited: Int32Array;
  private epoch = 0;
  work = 0;
  overflowed = false;

  constructor(
    private readonly prog: Prog,
    private readonly allowance: DfaAllowance,
  ) {
    this.visited = new Int32Array(prog.inst.length);
    let empties = 0;
    for (const inst of prog.inst) if (inst.op === EMPTY_WIDTH) empties |= inst.arg;
    this.needsLine = (empties & (BEGIN_LINE | END_LINE)) !== 0;
    this.needsWord = (empties & (WORD_BOUNDARY | NO_WORD_BOUNDARY)) !== 0;
    this.classes = characterClasses(prog, this.needsLine, this.needsWord);
    this.reps = representatives(this.classes.bounds);
    this.numClasses = this.classes.bounds.length + 1;
    this.anchored = (this.startCondition() & BEGIN_TEXT) !== 0;
    this.start = this.state([prog.start], BEGIN_TEXT | BEGIN_LINE);
  }

  /** The empty-width flags every match must satisfy before its first character. */
  private startCondition(): number {
    let flags = 0;
    for (let pc = this.prog.start, steps = 0; steps < this.prog.inst.length; steps++) {
      const inst = this.prog.inst[pc]!;
      if (inst.op === EMPTY_WIDTH) flags |= inst.arg;
      else if (inst.op !== CAPTURE && inst.op !== NOP) break;
      pc = inst.out;
    }
    return flags;
  }

  /**
   * The instructions reachable from `from` without consuming a character, given the empty-width
   * `flags` that hold here: rune instructions, MATCH, and the empty-width instructions still waiting
   * for a flag (they may hold once the next character is known).
   */
  private closure(from: ArrayLike<number>, flags: number): number[] {
    const seen = this.visited;
    const epoch = ++this.epoch;
    const out: number[] = [];
    const stack: number[] = [];
    for (let i = from.length - 1; i >= 0; i--) stack.push(from[i]!);
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen[pc] === epoch) continue;
      seen[pc] = epoch;
      this.work++;
      const inst = this.prog.inst[pc]!;
      switch (inst.op) {
        case ALT:
        case ALT_MATCH:
          stack.push(inst.arg, inst.out);
          break;
        case CAPTURE:
        case NOP:
          stack.push(inst.out);
          break;
        case EMPTY_WIDTH:
          if ((inst.arg & ~flags) === 0) stack.push(inst.out);
          else out.push(pc);
          break;
        case FAIL:
          break;
        default:
          out.push(pc);
      }
    }
    return out.sort((a, b) => a - b);
  }

  private hasMatch(pcs: ArrayLike<number>): boolean {
    for (let i = 0; i < pcs.length; i++) if (this.prog.inst[pcs[i]!]!.op === MATCH) return true;
    return false;
  }

  /** The state of the closure of `from` under `flags` (made if new); MATCHED if it holds a match. */
  private state(from: ArrayLike<number>, flags: number): number {
    const pcs = this.closure(from, flags & (BEGIN_LINE | BEGIN_TEXT));
    if (this.hasMatch(pcs)) return MATCHED;
    if (pcs.length === 0 && this.anchored) return DEAD;
    // Only what a later closure can still read is part of the state's identity.
    let kept = 0;
    if (pcs.some((pc) => this.prog.inst[pc]!.op === EMPTY_WIDTH)) kept = flags & (BEGIN_LINE | BEGIN_TEXT);
    if (this.needsWord) kept |= flags & LAST_WORD;
    const key = `${kept}:${pcs.join(',')}`;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const cellsAfter = (this.pcs.length + 1) * this.numClasses;
    if (this.pcs.length >= MAX_STATES || cellsAfter > this.allowance.cells || this.work > this.allowance.work) {
      this.overflowed = true;
      return UNBUILT;
    }
    const id = this.pcs.length;
    this.ids.set(key, id);
    this.pcs.push(Int32Array.from(pcs));
    this.flags.push(kept);
    const needed = this.pcs.length * this.numClasses;
    if (needed > this.table.length) {
      const size = Math.min(Math.max(needed, this.table.length * 2), DFA_MAX_CELLS);
      const grown = new Int32Array(size).fill(UNBUILT);
      grown.set(this.table);
      this.table = grown;
    }
    this.endVerdicts.push(0);
    return id;
  }

  /** The flags that hold between the character before (state) and `r` (-1: the end of the text). */
  private before(state: number, r: number): number {
    let flags = this.flags[state]!;
    if (r < 0) flags |= END_TEXT | END_LINE;
    else if (r === 10) flags |= END_LINE;
    const lastWord = (flags & LAST_WORD) !== 0;
    flags |= (r >= 0 && isWord(r)) === lastWord ? NO_WORD_BOUNDARY : WORD_BOUNDARY;
    return flags;
  }

  /**
   * Builds the transition of `state` on the class of `r`. `closures` keeps the state's closures by
   * the flags they were taken under: every class with the same flags shares one.
   */
  private step(state: number, cls: number, r: number, closures: Map<number, number[]>): number {
    const flags = this.before(state, r);
    let pcs = closures.get(flags);
    if (pcs === undefined) {
      pcs = this.closure(this.pcs[state]!, flags);
      closures.set(flags, pcs);
    }
    this.work += pcs.length;
    const cell = state * this.numClasses + cls;
    if (this.hasMatch(pcs)) return (this.table[cell] = MATCHED);
    const next: number[] = [];
    for (const pc of pcs) {
      const inst = this.prog.inst[pc]!;
      switch (inst.op) {
        case RUNE:
        case RUNE1:
          if (inst.matchRune(r)) next.push(inst.out);
          break;
        case RUNE_ANY:
          next.push(inst.out);
          break;
        case RUNE_ANY_NOT_NL:
          if (r !== 10) next.push(inst.out);
          break;
      }
    }
    if (!this.anchored) next.push(this.prog.start);
    const after = (r === 10 ? BEGIN_LINE : 0) | (isWord(r) ? LAST_WORD : 0);
    const target = this.state(next, after);
    if (target !== UNBUILT) this.table[cell] = target < 0 ? target : target * this.numClasses;
    return target;
  }

  private endMatches(state: number): boolean {
    let verdict = this.endVerdicts[state]!;
    if (verdict === 0) {
      verdict = this.hasMatch(this.closure(this.pcs[state]!, this.before(state, -1))) ? 2 : 1;
      this.endVerdicts[state] = verdict;
    }
    return verdict === 2;
  }

  /**
   * Builds every state reachable from the start on any text, every transition and every end
   * verdict; false when a budget (states, cells, work) runs out first. Afterwards `test` only reads.
   */
  complete(): boolean {
    if (this.start < 0) return !this.overflowed;
    for (let state = 0; state < this.pcs.length; state++) {
      const closures = new Map<number, number[]>();
      for (let cls = 0; cls < this.numClasses; cls++) {
        if (this.table[state * this.numClasses + cls] !== UNBUILT) continue;
        if (this.step(state, cls, this.reps[cls]!, closures) === UNBUILT || this.work > this.allowance.work) return false;
      }
      this.endMatches(state);
    }
    const cells = this.pcs.length * this.numClasses;
    if (this.table.length > cells) this.table = this.table.slice(0, cells);
    // What only building needed.
    this.ids = new Map();
    this.pcs = [];
    return true;
  }

  /** Memory the built DFA holds, in bytes (its tables and the character classes). */
  bytes(): number {
    return this.table.byteLength + this.classes.latin1.byteLength + this.classes.bounds.byteLength + 8 * this.endVerdicts.length + 256;
  }

  /** Whether the pattern matches anywhere in `s` (call after `complete`). */
  test(s: string): boolean {
    if (this.start < 0) return this.start === MATCHED;
    const { latin1, bounds } = this.classes;
    const width = this.numClasses;
    const table = this.table;
    let row = this.start * width;
    const n = s.length;
    for (let i = 0; i < n; i++) {
      let r = s.charCodeAt(i);
      let cls: number;
      if (r < 256) cls = latin1[r]!;
      else {
        if (r >= 0xd800 && r <= 0xdbff && i + 1 < n) {
          const low = s.charCodeAt(i + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            r = ((r - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
            i++;
          }
        }
        cls = classOf(bounds, r);
      }
      const next = table[row + cls]!;
      if (next < 0) return next === MATCHED;
      row = next;
    }
    return this.endVerdicts[row / width] === 2;
  }
}

/** A built DFA: its search, and the memory it holds. */
export interface DfaMatcher {
  readonly test: (s: string) => boolean;
  readonly bytes: number;
}

/**
 * What DFAs built from now on may still use: work (instructions visited) and table cells. One
 * pattern gets at most MAX_BUILD_WORK and DFA_MAX_CELLS; the patterns of one schema share an
 * allowance (compile-schema), so a schema of many patterns cannot take many times as long.
 */
export interface DfaAllowance {
  work: number;
  cells: number;
}

/**
 * The DFA of the compiled re2js pattern `re` (search semantics, like `re.test`), built whole; or
 * undefined when this engine does not run its program or it needs more than the budget (the
 * pattern then stays on re2js). The work and cells it used are taken from `shared` when given.
 */
export function compileDfa(re: RE2JS, shared?: DfaAllowance): DfaMatcher | undefined {
  const prog = programOf(re);
  if (!prog) return undefined;
  const allowance = {
    work: Math.min(MAX_BUILD_WORK, shared?.work ?? MAX_BUILD_WORK),
    cells: Math.min(DFA_MAX_CELLS, shared?.cells ?? DFA_MAX_CELLS),
  };
  if (allowance.work <= 0 || allowance.cells <= 0) return undefined;
  const dfa = new Dfa(prog, allowance);
  const built = !dfa.overflowed && dfa.complete();
  if (shared) shared.work -= dfa.work;
  if (!built) return undefined;
  const matcher = { test: (s: string) => dfa.test(s), bytes: dfa.bytes() };
  if (shared) shared.cells -= matcher.bytes >> 2;
  return matcher;
}
