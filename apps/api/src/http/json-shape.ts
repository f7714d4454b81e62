/** How deep a request body may nest. Our bodies need a handful of levels; JSON values of metafields are strings. */
export const MAX_JSON_DEPTH = 64;

/** String.prototype.isWellFormed (Node 20+; not yet in TypeScript's ES2022 lib). */
const wellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

// PostgreSQL's text cannot hold NUL (SQLite's can): refused on both, so both behave alike (decisions §12.1).
const NUL_PROBLEM = 'a string holds the NUL character (\\u0000), which no text field can store';

/**
 * decisions §3.1, §4: what a parsed body must also be before any route reads it. Nesting is bounded
 * (a body of 200,000 nested arrays would overflow the stack of whatever walks it next), and every
 * string and key is Unicode without NUL: `"\ud800"` parses, but no database can store it as sent. Iterative, so
 * the check itself cannot overflow. Returns the problem, or undefined.
 */
export function checkJsonShape(root: unknown): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!wellFormed(value)) return 'a string holds an unpaired UTF-16 surrogate (not Unicode text)';
      if (value.includes('\u0000')) return NUL_PROBLEM;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (!wellFormed(key)) return 'a key holds an unpaired UTF-16 surrogate (not Unicode text)';
      if (key.includes('\u0000')) return NUL_PROBLEM;
      stack.push({ value: item, depth: depth + 1 });
    }
  }
  return undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index of the quote closing the string that opens at `start` (the text is valid JSON). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let slashes = 0;
    for (let i = end - 1; text.charCodeAt(i) === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * The first key that appears twice in one object of `text`, which must already be valid JSON, or
 * undefined. `JSON.parse` keeps the last of two equal keys silently, so `{"value":"a","value":"b"}`
 * would be read as one thing and logged or signed as another; bodies are refused instead, as
 * metafield values are (issue 8, finding 6). Keys compare decoded (`"a"` and `"\u0061"` are the same).
 * One pass without recursion; sets of keys are made only for objects with a second key.
 */
export function findDuplicateKey(text: string): string | undefined {
  // Per open container: undefined for an array, else the keys seen so far (null while fewer than 2).
  const keys: (Set<string> | null | undefined | string)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        const top = keys.length - 1;
        const seen = keys[top];
        if (seen === null) keys[top] = key;
        else if (typeof seen === 'string') {
          if (seen === key) return key;
          keys[top] = new Set([seen, key]);
        } else if (seen instanceof Set) {
          if (seen.has(key)) return key;
          seen.add(key);
        }
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      keys.push(null);
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      keys.push(undefined);
      expectKey = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      keys.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      expectKey = keys.length > 0 && keys[keys.length - 1] !== undefined;
    }
  }
  return undefined;
}
