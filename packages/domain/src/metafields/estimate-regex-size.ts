// An upper bound on the size of the program re2js compiles from an RE2 pattern, read from the
// pattern's text in one linear pass, before anything is compiled. re2js has no program budget of
// its own (RE2 refuses programs over its memory budget: "pattern too large"), and compiling costs
// time and memory in proportion to the program: `[\s\S]{1000}` repeated 300 times is a 3,600
// character pattern of 300,000 instructions. The bound lets the caller refuse such a pattern
// without compiling it, and compile the rest to read their exact size.
//
// The bound follows re2js's compiler (Go's regexp/syntax): two instructions for the program, one
// per literal character, class, `.` or empty-width assertion, two per capture, one per `|`, at most
// two per `*`, `+` or `?`, and `x{n,m}` as m copies of x plus m optional branches. The parser can
// only shrink that (it merges alternatives into classes and factors common prefixes). Syntax the
// engine refuses may be bounded loosely: compiling it fails anyway.

/** The counts of `{n,m}` RE2 accepts (larger ones are syntax errors); estimates clamp to it. */
const MAX_REPEAT = 1000;

interface Cursor {
  readonly src: string;
  pos: number;
}

/** Upper bound on the number of instructions of the program re2js compiles from `source` (RE2 syntax). */
export function estimateProgramSize(source: string): number {
  const cursor: Cursor = { src: source, pos: 0 };
  let total = 2;
  // Unbalanced `)` is a syntax error; the rest is still bounded.
  for (;;) {
    total += alternation(cursor);
    if (cursor.pos >= source.length) return total;
    cursor.pos++;
  }
}

// Groups nest through an explicit stack of frames rather than recursion, so a pattern of 100,000
// nested parentheses cannot overflow the call stack.
interface Frame {
  /** Size of the finished branches of the alternation in progress, plus one per `|`. */
  branches: number;
  branchCount: number;
  /** Size of the branch in progress. */
  concat: number;
  /** Size of the last piece of the branch (what a quantifier applies to), or -1 when there is none. */
  last: number;
  /** Extra instructions the group itself adds when it closes (2 for a capture). */
  groupCost: number;
}

function newFrame(groupCost: number): Frame {
  return { branches: 0, branchCount: 0, concat: 0, last: -1, groupCost };
}

function endBranch(frame: Frame): void {
  // An empty branch compiles to one no-op instruction.
  frame.branches += frame.concat === 0 ? 1 : frame.concat;
  frame.branchCount++;
  frame.concat = 0;
  frame.last = -1;
}

function frameSize(frame: Frame): number {
  endBranch(frame);
  return frame.branches + (frame.branchCount - 1) + frame.groupCost;
}

function addPiece(frame: Frame, size: number): void {
  frame.concat += size;
  frame.last = size;
}

/** Applies a quantifier to the frame's last piece. */
function quantify(frame: Frame, copies: number, extra: number): void {
  if (frame.last < 0) return;
  frame.concat += frame.last * (copies - 1) + extra;
  frame.last = frame.last * copies + extra;
}

/** One whole alternation from the cursor up to an unmatched `)` or the end. */
function alternation(c: Cursor): number {
  const stack: Frame[] = [newFrame(0)];
  const src = c.src;
  while (c.pos < src.length) {
    const frame = stack[stack.length - 1]!;
    const ch = src[c.pos]!;
    switch (ch) {
      case '|':
        c.pos++;
        endBranch(frame);
        continue;
      case '(': {
        c.pos++;
        const capture = groupOpening(c);
        if (capture === 'flags') continue;
        stack.push(newFrame(capture ? 2 : 0));
        continue;
      }
      case ')': {
        if (stack.length === 1) return frameSize(frame);
        c.pos++;
        stack.pop();
        addPiece(stack[stack.length - 1]!, frameSize(frame));
        continue;
      }
      case '*':
      case '+':
      case '?':
        c.pos++;
        if (src[c.pos] === '?') c.pos++;
        quantify(frame, 1, 2);
        continue;
      case '{': {
        const repeat = repetition(c);
        if (repeat === undefined) {
          c.pos++;
          addPiece(frame, 1);
          continue;
        }
        // x{n} is n copies; x{n,m} is m copies, m - n of them optional; x{n,} is n copies and a loop.
        const copies = Math.max(repeat.max ?? repeat.min + 1, 1);
        quantify(frame, copies, (repeat.max ?? repeat.min) - repeat.min + 2);
        continue;
      }
      case '[':
        skipClass(c);
        addPiece(frame, 1);
        continue;
      case '\\':
        addPiece(frame, escape(c));
        continue;
      default:
        // One code point: a surrogate pair is one character of the pattern.
        c.pos += (src.codePointAt(c.pos) ?? 0) > 0xffff ? 2 : 1;
        addPiece(frame, 1);
    }
  }
  // Unclosed groups are syntax errors; their contents still count.
  let size = frameSize(stack.pop()!);
  while (stack.length > 0) {
    const outer = stack.pop()!;
    addPiece(outer, size);
    size = frameSize(outer);
  }
  return size;
}

/**
 * After `(`: consumes the group's opening. Returns whether it captures, or 'flags' for a flag
 * setting `(?i)` that opens no group.
 */
function groupOpening(c: Cursor): boolean | 'flags' {
  const src = c.src;
  if (src[c.pos] !== '?') return true;
  c.pos++;
  if (src[c.pos] === 'P' || (src[c.pos] === '<' && src[c.pos + 1] !== '=' && src[c.pos + 1] !== '!')) {
    // (?P<name>...) or (?<name>...): a named capture.
    const close = src.indexOf('>', c.pos);
    c.pos = close < 0 ? src.length : close + 1;
    return true;
  }
  // (?flags) or (?flags:...), and lookarounds (refused by the engine): read up to `:` or `)`.
  while (c.pos < src.length && src[c.pos] !== ':' && src[c.pos] !== ')') c.pos++;
  if (src[c.pos] === ')') {
    c.pos++;
    return 'flags';
  }
  c.pos++;
  return false;
}

/** `{n}`, `{n,}` or `{n,m}` at the cursor (consumed, with a lazy `?`); undefined when it is a literal `{`. */
function repetition(c: Cursor): { min: number; max: number | undefined } | undefined {
  const match = /^\{(\d+)(,(\d*))?\}/.exec(c.src.slice(c.pos, c.pos + 24));
  if (!match) return undefined;
  c.pos += match[0].length;
  if (c.src[c.pos] === '?') c.pos++;
  const min = Math.min(Number(match[1]), MAX_REPEAT);
  if (match[2] === undefined) return { min, max: min };
  return { min, max: match[3] === '' ? undefined : Math.min(Number(match[3]), MAX_REPEAT) };
}

const NAMED_CLASS = /^\[:\^?[A-Za-z]{1,10}:\]/;

/** A character class from `[` to its closing `]` (one instruction whatever it holds). */
function skipClass(c: Cursor): void {
  const src = c.src;
  c.pos++;
  if (src[c.pos] === '^') c.pos++;
  // A `]` first in the class is a literal.
  if (src[c.pos] === ']') c.pos++;
  while (c.pos < src.length && src[c.pos] !== ']') {
    if (src[c.pos] === '\\') c.pos += 2;
    else if (src.startsWith('[:', c.pos)) {
      // A named class (`[:alpha:]`, `[:^digit:]`) is short: looking for its end only nearby keeps
      // the pass linear (searching to the end of the text for each `[:` was quadratic).
      const named = NAMED_CLASS.exec(src.slice(c.pos, c.pos + 16));
      c.pos += named ? named[0].length : 1;
    } else c.pos++;
  }
  c.pos++;
}

/** An escape at the cursor: its size (one, or the length of a `\Q...\E` quotation). */
function escape(c: Cursor): number {
  const src = c.src;
  const kind = src[c.pos + 1];
  if (kind === 'Q') {
    const end = src.indexOf('\\E', c.pos + 2);
    const quoted = src.slice(c.pos + 2, end < 0 ? src.length : end);
    c.pos = end < 0 ? src.length : end + 2;
    return Math.max([...quoted].length, 1);
  }
  if ((kind === 'p' || kind === 'P' || kind === 'x') && src[c.pos + 2] === '{') {
    // Unicode class names and hex code points are short; a `{` without a near `}` is a syntax
    // error, bounded as one instruction (searched nearby only, so the pass stays linear).
    const close = src.slice(c.pos + 3, c.pos + 3 + 64).indexOf('}');
    c.pos = close < 0 ? c.pos + 3 : c.pos + 3 + close + 1;
    return 1;
  }
  if (kind === 'x') {
    c.pos += 4;
    return 1;
  }
  if (kind === 'p' || kind === 'P') {
    c.pos += 3;
    return 1;
  }
  // Any other escape is one character, class or assertion (octal digits included).
  c.pos += 1 + ((src.codePointAt(c.pos + 1) ?? 0) > 0xffff ? 2 : 1);
  while (kind !== undefined && kind >= '0' && kind <= '7' && c.pos < src.length && src[c.pos]! >= '0' && src[c.pos]! <= '7') c.pos++;
  return 1;
}
