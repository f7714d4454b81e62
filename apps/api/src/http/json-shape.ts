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
