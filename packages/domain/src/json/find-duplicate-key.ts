const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index of the quote closing the string that opens at `start` (the text is valid JSON). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    if (text.charCodeAt(end - 1) !== BACKSLASH) return end;
    let slashes = 1;
    for (let i = end - 2; text.charCodeAt(i) === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * The first key that appears twice in one object of `text`, which must already be valid JSON, or
 * undefined. `JSON.parse` keeps the last of two equal keys silently, so `{"value":"a","value":"b"}`
 * would be read as one thing and logged or signed as another; request bodies and `json`
 * metafield values are refused instead (issue 8, finding 6). Keys compare decoded (`"a"` and `"\u0061"` are the same).
 */
export function findDuplicateKey(text: string): string | undefined {
  const found = findRawDuplicateKey(text);
  return found === NEEDS_DECODING ? findDecodedDuplicateKey(text) : found;
}

// The common case, on every request body and json value: keys written without escapes, objects of a
// few keys. Compared where they are written (no string made per key, no set per object); a key
// with a backslash, or an object past WIDE keys, sends the whole text to the decoding scan below.
const NEEDS_DECODING = Symbol('needs decoding');
const WIDE = 24;
// Reused between calls (synchronous, never re-entered): where each key of the open objects starts
// and ends, and per open container the index of its first key there (-1 for an array).
const keyStarts: number[] = [];
const keyEnds: number[] = [];
const frames: number[] = [];

function findRawDuplicateKey(text: string): string | undefined | typeof NEEDS_DECODING {
  let keys = 0;
  let depth = 0;
  let expectKey = false;
  let nextBackslash = text.indexOf('\\');
  if (nextBackslash < 0) nextBackslash = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Without a backslash before it, the next quote closes the string.
      let end = text.indexOf('"', i + 1);
      if (nextBackslash < end) end = stringEnd(text, i);
      if (expectKey) {
        if (nextBackslash < end) return NEEDS_DECODING;
        const start = i + 1;
        const length = end - start;
        const first = frames[depth - 1] as number;
        if (keys - first >= WIDE) return NEEDS_DECODING;
        for (let k = first; k < keys; k++) {
          const at = keyStarts[k] as number;
          if ((keyEnds[k] as number) - at === length && sameText(text, at, start, length)) return text.slice(start, end);
        }
        keyStarts[keys] = start;
        keyEnds[keys] = end;
        keys++;
        expectKey = false;
      }
      i = end;
      if (nextBackslash < end) {
        nextBackslash = text.indexOf('\\', i);
        if (nextBackslash < 0) nextBackslash = text.length;
      }
    } else if (c === 0x7b /* { */) {
      frames[depth++] = keys;
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      frames[depth++] = -1;
      expectKey = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      const first = frames[--depth] as number;
      if (first >= 0) keys = first;
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      expectKey = depth > 0 && frames[depth - 1] !== -1;
    }
  }
  return undefined;
}

function sameText(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

/** The same answer for any text: every key decoded, one set of keys per object with a second key. */
export function findDecodedDuplicateKey(text: string): string | undefined {
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
