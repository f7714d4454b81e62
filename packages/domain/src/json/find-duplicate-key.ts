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
 * would be read as one thing and logged or signed as another; request bodies and `json`
 * metafield values are refused instead (issue 8, finding 6). Keys compare decoded (`"a"` and `"\u0061"` are the same).
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
