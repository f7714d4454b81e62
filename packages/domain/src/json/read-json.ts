// JSON text to JavaScript values in one pass, as JSON.parse reads it, and also: a key given twice
// in one object is found (JSON.parse keeps the last silently; see find-duplicate-key.ts), nesting
// is bounded, and text that is not JSON costs no exception (a SyntaxError from JSON.parse costs
// microseconds, its stack trace). Numbers are the doubles JSON.parse gives, strings the same
// strings. Objects are either plain objects (JSON.parse's) or records: objects that inherit
// nothing (their prototype is an empty object whose own prototype is null), so that a lookup of
// `toString` or `__proto__` finds only data, and own-property checks need no hasOwnProperty call.

/** Objects that inherit nothing; see above. Made by a constructor rather than Object.create(null), whose objects V8 keeps as slower dictionaries. */
function InertRecord(): void {}
InertRecord.prototype = Object.create(null) as object;
const InertObject = InertRecord as unknown as new () => Record<string, unknown>;

/** Why readJson failed: not JSON, a key given twice (`duplicateKey` says which), or nested past `maxDepth`. */
export type JsonReadFailure = 'syntax' | 'duplicate-key' | 'too-deep';

export interface JsonReadOptions {
  readonly maxDepth: number;
  readonly records: boolean;
}

/** readJson's answer when the text is not read: see `lastFailure`. */
export const NOT_READ: unique symbol = Symbol('not read');

/** Why the last readJson call answered NOT_READ, and the key given twice when that is why. */
export const lastFailure: { reason: JsonReadFailure; duplicateKey: string } = { reason: 'syntax', duplicateKey: '' };

// Keys repeat across values (the same property names in every value of a definition): a small
// table of keys already made spares making and internalizing the same string again.
const KEY_SLOTS = 512;
const KEY_CACHE_MAX_LENGTH = 32;
const keyCache: (string | undefined)[] = new Array<string | undefined>(KEY_SLOTS).fill(undefined);

const POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
/** Significant digits an integer below 2^53 always holds. */
const EXACT_DIGITS = 15;
/** Keys of one object compared one by one before a lookup in the object itself is cheaper. */
const LINEAR_KEYS = 8;

const FAIL: unique symbol = Symbol('fail');
type Read = unknown;

// The reader's state. Reads are synchronous and never nested, so one serves every call.
let text = '';
let pos = 0;
let end = 0;
let maxDepth = 0;
let records = false;
let tooDeep = false;
let duplicate: string | undefined;
// Keys of the objects being read, for the duplicate check: each open object's keys from its base.
const keyStack: string[] = [];
let keyTop = 0;

/**
 * Reads JSON text (RFC 8259, as JSON.parse) into values, or answers NOT_READ with the reason in
 * `lastFailure`. A syntax error anywhere wins over a duplicate key; of several duplicate keys, the
 * first written is named (findDuplicateKey's answer). Containers may nest `maxDepth` deep.
 */
export function readJson(source: string, options: JsonReadOptions): unknown {
  text = source;
  pos = 0;
  end = source.length;
  maxDepth = options.maxDepth;
  records = options.records;
  tooDeep = false;
  duplicate = undefined;
  keyTop = 0;
  nextSpecial = -1;
  let value = readValue(0);
  if (value !== FAIL) {
    skipSpace();
    if (pos !== end) value = FAIL;
  }
  text = '';
  if (value === FAIL) {
    lastFailure.reason = tooDeep ? 'too-deep' : 'syntax';
    return NOT_READ;
  }
  if (duplicate !== undefined) {
    lastFailure.reason = 'duplicate-key';
    lastFailure.duplicateKey = duplicate;
    return NOT_READ;
  }
  return value;
}

// Never reads past the end: charCodeAt out of range is NaN, and slow.
function skipSpace(): void {
  while (pos < end) {
    const c = text.charCodeAt(pos);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    pos++;
  }
}

function readValue(depth: number): Read {
  skipSpace();
  if (pos === end) return FAIL;
  const c = text.charCodeAt(pos);
  if (c === 0x22) return readString();
  if (c === 0x7b) return readObject(depth + 1);
  if (c === 0x5b) return readArray(depth + 1);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return readNumber();
  if (c === 0x74 && text.startsWith('true', pos)) {
    pos += 4;
    return true;
  }
  if (c === 0x66 && text.startsWith('false', pos)) {
    pos += 5;
    return false;
  }
  if (c === 0x6e && text.startsWith('null', pos)) {
    pos += 4;
    return null;
  }
  return FAIL;
}

// Where the next backslash or control character is (a string holding one is read the slow way):
// found by one regular-expression search, native code, and searched again only once passed, so
// a string's end is then a plain indexOf of the quote.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const SPECIAL = /[\\\x00-\x1f]/g;
let nextSpecial = 0;

function findSpecial(from: number): void {
  SPECIAL.lastIndex = from;
  nextSpecial = SPECIAL.test(text) ? SPECIAL.lastIndex - 1 : end;
}

/** The index of the quote closing a string whose text starts at `start`, or -1 when it holds something to decode (or is not closed). */
function plainStringEnd(start: number): number {
  if (nextSpecial < start) findSpecial(start);
  const quote = text.indexOf('"', start);
  return quote >= 0 && quote < nextSpecial ? quote : -1;
}

function readString(): Read {
  const start = ++pos;
  const quote = plainStringEnd(start);
  if (quote < 0) return readEscapedString(start);
  pos = quote + 1;
  return text.slice(start, quote);
}

/** A string with escapes (or a control character, which fails): decoded by JSON.parse, which knows them all. */
function readEscapedString(start: number): Read {
  let i = start;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c < 0x20) return FAIL;
    if (c === 0x22) break;
    i += c === 0x5c ? 2 : 1;
  }
  if (i >= end) return FAIL;
  try {
    const decoded = JSON.parse(text.slice(start - 1, i + 1)) as string;
    pos = i + 1;
    return decoded;
  } catch {
    return FAIL;
  }
}

/** An object key: taken from the cache when the same characters were a key before. */
function readKey(): Read {
  const start = ++pos;
  const quote = plainStringEnd(start);
  if (quote < 0) return readEscapedString(start);
  pos = quote + 1;
  const length = quote - start;
  if (length === 0 || length > KEY_CACHE_MAX_LENGTH) return text.slice(start, quote);
  const slot = (length * 977 + text.charCodeAt(start) * 31 + text.charCodeAt(quote - 1)) & (KEY_SLOTS - 1);
  const cached = keyCache[slot];
  if (cached !== undefined && cached.length === length && text.startsWith(cached, start)) return cached;
  const key = text.slice(start, quote);
  keyCache[slot] = key;
  return key;
}

function readNumber(): Read {
  const start = pos;
  let c = text.charCodeAt(pos);
  const negative = c === 0x2d;
  if (negative && ++pos === end) return FAIL;
  c = text.charCodeAt(pos) - 0x30;
  let digits = 0;
  let significant = 0;
  if (c === 0) pos++;
  else if (c > 0 && c <= 9) {
    do {
      digits = digits * 10 + c;
      significant++;
      if (++pos === end) break;
      c = text.charCodeAt(pos) - 0x30;
    } while (c >= 0 && c <= 9);
  } else return FAIL;
  let scale = 0;
  if (pos < end && text.charCodeAt(pos) === 0x2e) {
    if (++pos === end) return FAIL;
    c = text.charCodeAt(pos) - 0x30;
    if (c < 0 || c > 9) return FAIL;
    do {
      digits = digits * 10 + c;
      if (significant > 0 || c !== 0) significant++;
      scale++;
      if (++pos === end) break;
      c = text.charCodeAt(pos) - 0x30;
    } while (c >= 0 && c <= 9);
  }
  if (pos < end && (text.charCodeAt(pos) | 0x20) === 0x65 /* e or E */) {
    if (++pos === end) return FAIL;
    c = text.charCodeAt(pos);
    if ((c === 0x2b || c === 0x2d) && ++pos === end) return FAIL;
    c = text.charCodeAt(pos) - 0x30;
    if (c < 0 || c > 9) return FAIL;
    do pos++;
    while (pos < end && (c = text.charCodeAt(pos) - 0x30) >= 0 && c <= 9);
    return Number(text.slice(start, pos));
  }
  // An integer below 2^53 over an exact power of ten: IEEE division rounds the quotient correctly,
  // which is the double JSON.parse gives. Longer numbers are read by Number(), as JSON.parse reads them.
  if (significant > EXACT_DIGITS || scale >= POWERS_OF_TEN.length) return Number(text.slice(start, pos));
  const magnitude = scale === 0 ? digits : digits / (POWERS_OF_TEN[scale] as number);
  return negative ? -magnitude : magnitude;
}

function readArray(depth: number): Read {
  if (depth > maxDepth) {
    tooDeep = true;
    return FAIL;
  }
  pos++;
  const out: unknown[] = [];
  skipSpace();
  if (pos < end && text.charCodeAt(pos) === 0x5d) {
    pos++;
    return out;
  }
  for (;;) {
    const value = readValue(depth);
    if (value === FAIL) return FAIL;
    out.push(value);
    skipSpace();
    if (pos === end) return FAIL;
    const c = text.charCodeAt(pos++);
    if (c === 0x5d) return out;
    if (c !== 0x2c) return FAIL;
  }
}

function readObject(depth: number): Read {
  if (depth > maxDepth) {
    tooDeep = true;
    return FAIL;
  }
  pos++;
  const out = records ? new InertObject() : ({} as Record<string, unknown>);
  skipSpace();
  if (pos < end && text.charCodeAt(pos) === 0x7d) {
    pos++;
    return out;
  }
  const base = keyTop;
  for (;;) {
    skipSpace();
    if (pos === end || text.charCodeAt(pos) !== 0x22) return FAIL;
    const key = readKey() as string | typeof FAIL;
    if (key === FAIL) return FAIL;
    skipSpace();
    if (pos === end || text.charCodeAt(pos) !== 0x3a) return FAIL;
    pos++;
    // Checked before the value is read: a key given twice inside the value comes later in the text.
    const again = seen(out, key, base);
    if (again) duplicate ??= key;
    const value = readValue(depth);
    if (value === FAIL) return FAIL;
    if (!again) {
      keyStack[keyTop++] = key;
      // On a plain object, assigning __proto__ would set its prototype; JSON.parse makes a property.
      if (key === '__proto__' && !records) Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
      else out[key] = value;
    }
    skipSpace();
    if (pos === end) return FAIL;
    const c = text.charCodeAt(pos++);
    if (c === 0x7d) {
      keyTop = base;
      return out;
    }
    if (c !== 0x2c) return FAIL;
  }
}

function seen(out: object, key: string, base: number): boolean {
  if (keyTop - base > LINEAR_KEYS) return Object.prototype.hasOwnProperty.call(out, key);
  for (let i = base; i < keyTop; i++) if (keyStack[i] === key) return true;
  return false;
}
