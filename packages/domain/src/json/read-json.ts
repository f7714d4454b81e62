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

const POWERS_OF_TEN = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
/** Significant digits an integer below 2^53 always holds. */
const EXACT_DIGITS = 15;
/** Keys of one object compared one by one before a lookup in the object itself is cheaper. */
const LINEAR_KEYS = 8;

const FAIL: unique symbol = Symbol('fail');
type Read = unknown;

// The reader's state. Reads are synchronous and never nested, so one serves every call. A read at
// the end of the text gives NaN, which no test below takes for a character: the loops need no
// bound of their own (it is read once per value, at its end).
let text = '';
let pos = 0;
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
  maxDepth = options.maxDepth;
  records = options.records;
  tooDeep = false;
  duplicate = undefined;
  keyTop = 0;
  let value = readValue(0);
  if (value !== FAIL) {
    skipSpace();
    if (pos !== text.length) value = FAIL;
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

/** Moves past JSON's four space characters; answers the character there (NaN at the end). */
// The hot loops work on locals and store the position once: `text` and `pos` are module state,
// which V8 loads and stores again on every turn of a loop.
function skipSpace(): number {
  const t = text;
  let i = pos;
  let c = t.charCodeAt(i);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++i);
  pos = i;
  return c;
}

function readValue(depth: number): Read {
  const c = skipSpace();
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

function readString(): Read {
  const t = text;
  const start = pos + 1;
  for (let i = start; ; i++) {
    const c = t.charCodeAt(i);
    if (c === 0x22) {
      pos = i + 1;
      return t.slice(start, i);
    }
    // A backslash, a control character (refused), or the end (NaN).
    if (c === 0x5c || c < 0x20 || c !== c) return readEscapedString(start);
  }
}

/** A string with escapes (or a control character, which fails): decoded by JSON.parse, which knows them all. */
function readEscapedString(start: number): Read {
  let i = start;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c !== c) return FAIL;
    if (c === 0x22) break;
    i += c === 0x5c ? 2 : 1;
  }
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
  const t = text;
  const start = pos + 1;
  let i = start;
  let hash = 0;
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 0x22) break;
    if (c === 0x5c || c < 0x20 || c !== c) return readEscapedString(start);
    hash = (Math.imul(hash, 31) + c) | 0;
    i++;
  }
  pos = i + 1;
  const length = i - start;
  if (length > KEY_CACHE_MAX_LENGTH) return t.slice(start, i);
  const slot = (hash ^ length) & (KEY_SLOTS - 1);
  const cached = keyCache[slot];
  if (cached !== undefined && cached.length === length) {
    let k = 0;
    while (k < length && cached.charCodeAt(k) === t.charCodeAt(start + k)) k++;
    if (k === length) return cached;
  }
  const key = t.slice(start, i);
  keyCache[slot] = key;
  return key;
}

function readNumber(): Read {
  const t = text;
  const start = pos;
  let i = start;
  let c = t.charCodeAt(i);
  const negative = c === 0x2d;
  if (negative) c = t.charCodeAt(++i);
  let digits = 0;
  let significant = 0;
  if (c === 0x30) c = t.charCodeAt(++i);
  else if (c >= 0x31 && c <= 0x39) {
    do {
      digits = digits * 10 + (c - 0x30);
      significant++;
      c = t.charCodeAt(++i);
    } while (c >= 0x30 && c <= 0x39);
  } else return FAIL;
  let scale = 0;
  if (c === 0x2e) {
    c = t.charCodeAt(++i);
    if (!(c >= 0x30 && c <= 0x39)) return FAIL;
    do {
      digits = digits * 10 + (c - 0x30);
      if (significant > 0 || c !== 0x30) significant++;
      scale++;
      c = t.charCodeAt(++i);
    } while (c >= 0x30 && c <= 0x39);
  }
  if (c === 0x65 || c === 0x45) {
    c = t.charCodeAt(++i);
    if (c === 0x2b || c === 0x2d) c = t.charCodeAt(++i);
    if (!(c >= 0x30 && c <= 0x39)) return FAIL;
    do c = t.charCodeAt(++i);
    while (c >= 0x30 && c <= 0x39);
    pos = i;
    return Number(t.slice(start, i));
  }
  pos = i;
  // An integer below 2^53 over an exact power of ten: IEEE division rounds the quotient correctly,
  // which is the double JSON.parse gives. Longer numbers are read by Number(), as JSON.parse reads them.
  if (significant > EXACT_DIGITS || scale >= POWERS_OF_TEN.length) return Number(t.slice(start, i));
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
  if (skipSpace() === 0x5d) {
    pos++;
    return out;
  }
  for (;;) {
    const value = readValue(depth);
    if (value === FAIL) return FAIL;
    out.push(value);
    const c = skipSpace();
    pos++;
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
  let c = skipSpace();
  if (c === 0x7d) {
    pos++;
    return out;
  }
  const base = keyTop;
  for (;;) {
    if (c !== 0x22) return FAIL;
    const key = readKey() as string | typeof FAIL;
    if (key === FAIL) return FAIL;
    if (skipSpace() !== 0x3a) return FAIL;
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
    c = skipSpace();
    pos++;
    if (c === 0x7d) {
      keyTop = base;
      return out;
    }
    if (c !== 0x2c) return FAIL;
    c = skipSpace();
  }
}

function seen(out: object, key: string, base: number): boolean {
  if (keyTop - base > LINEAR_KEYS) return Object.prototype.hasOwnProperty.call(out, key);
  for (let i = base; i < keyTop; i++) if (keyStack[i] === key) return true;
  return false;
}
