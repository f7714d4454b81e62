// A strict JSON reader for structured values and lists (decisions §8.8: nothing is silently
// rewritten). Unlike JSON.parse it keeps every number as written (so `1.10`, `1e2` and
// 1.00000000000000001 are judged and compared on their text, never through a double), refuses
// duplicate object keys (JSON.parse keeps the last one silently) and bounds nesting.

export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonNode = null | boolean | string | JsonNumber | JsonNode[] | JsonObjectNode;
export interface JsonObjectNode {
  readonly [key: string]: JsonNode;
}

export type StrictJsonResult =
  | { readonly ok: true; readonly value: JsonNode }
  | { readonly ok: false; readonly reason: 'syntax' | 'too-deep' }
  | { readonly ok: false; readonly reason: 'duplicate-key'; readonly key: string };

export function isJsonObject(node: JsonNode | undefined): node is JsonObjectNode {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && !(node instanceof JsonNumber);
}

/** Own keys of a parsed object (objects are built without Object.prototype behind them). */
export function jsonKeys(node: JsonObjectNode): string[] {
  return Object.keys(node);
}

// Parsed objects inherit nothing (a key like __proto__ or toString is only data): their prototype is an
// empty object whose own prototype is null. Made by a constructor rather than Object.create(null),
// whose objects V8 keeps as dictionaries, slower to fill and to read.
function PlainRecord(): void {}
PlainRecord.prototype = Object.create(null) as object;
const JsonRecord = PlainRecord as unknown as new () => Record<string, JsonNode>;

class Failure {
  constructor(
    readonly reason: 'syntax' | 'too-deep' | 'duplicate-key',
    readonly key = '',
  ) {}
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class Reader {
  pos = 0;
  constructor(
    private readonly s: string,
    private readonly maxDepth: number,
  ) {}

  document(): JsonNode {
    this.ws();
    const value = this.value(0);
    this.ws();
    if (this.pos !== this.s.length) throw new Failure('syntax');
    return value;
  }

  private ws(): void {
    const s = this.s;
    let c = s.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++this.pos);
  }

  private value(depth: number): JsonNode {
    const c = this.s.charCodeAt(this.pos);
    if (c === 0x22) return this.string();
    if (c === 0x7b) return this.object(depth + 1);
    if (c === 0x5b) return this.array(depth + 1);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (this.s.startsWith('true', this.pos)) return this.literal(4, true);
    if (this.s.startsWith('false', this.pos)) return this.literal(5, false);
    if (this.s.startsWith('null', this.pos)) return this.literal(4, null);
    throw new Failure('syntax');
  }

  private literal<T>(length: number, value: T): T {
    this.pos += length;
    return value;
  }

  private number(): JsonNumber {
    NUMBER.lastIndex = this.pos;
    if (!NUMBER.test(this.s)) throw new Failure('syntax');
    const text = this.s.slice(this.pos, NUMBER.lastIndex);
    this.pos = NUMBER.lastIndex;
    return new JsonNumber(text);
  }

  private string(): string {
    const s = this.s;
    let start = ++this.pos;
    let out = '';
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (Number.isNaN(c) || c < 0x20) throw new Failure('syntax');
      if (c === 0x22) {
        out += s.slice(start, this.pos++);
        return out;
      }
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += s.slice(start, this.pos);
      const e = s[this.pos + 1];
      this.pos += 2;
      if (e === '"' || e === '\\' || e === '/') out += e;
      else if (e === 'b') out += '\b';
      else if (e === 'f') out += '\f';
      else if (e === 'n') out += '\n';
      else if (e === 'r') out += '\r';
      else if (e === 't') out += '\t';
      else if (e === 'u') {
        const hex = s.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Failure('syntax');
        out += String.fromCharCode(parseInt(hex, 16));
        this.pos += 4;
      } else throw new Failure('syntax');
      start = this.pos;
    }
  }

  private array(depth: number): JsonNode[] {
    if (depth > this.maxDepth) throw new Failure('too-deep');
    this.pos++;
    const out: JsonNode[] = [];
    this.ws();
    if (this.s.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value(depth));
      this.ws();
      const c = this.s.charCodeAt(this.pos++);
      if (c === 0x5d) return out;
      if (c !== 0x2c) throw new Failure('syntax');
    }
  }

  private object(depth: number): JsonObjectNode {
    if (depth > this.maxDepth) throw new Failure('too-deep');
    this.pos++;
    const out = new JsonRecord();
    this.ws();
    if (this.s.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.pos) !== 0x22) throw new Failure('syntax');
      const key = this.string();
      if (Object.prototype.hasOwnProperty.call(out, key)) throw new Failure('duplicate-key', key);
      this.ws();
      if (this.s.charCodeAt(this.pos++) !== 0x3a) throw new Failure('syntax');
      this.ws();
      out[key] = this.value(depth);
      this.ws();
      const c = this.s.charCodeAt(this.pos++);
      if (c === 0x7d) return out;
      if (c !== 0x2c) throw new Failure('syntax');
    }
  }
}

/** Parses RFC 8259 JSON text; containers may nest at most `maxDepth` deep. */
export function parseStrictJson(text: string, maxDepth: number): StrictJsonResult {
  try {
    return { ok: true, value: new Reader(text, maxDepth).document() };
  } catch (e) {
    if (!(e instanceof Failure)) throw e;
    return e.reason === 'duplicate-key' ? { ok: false, reason: e.reason, key: e.key } : { ok: false, reason: e.reason };
  }
}

/** The problem text for a failed strict parse. */
export function describeJsonFailure(result: Exclude<StrictJsonResult, { ok: true }>): string {
  if (result.reason === 'too-deep') return 'is nested too deeply';
  if (result.reason === 'duplicate-key') return `is not valid JSON (duplicate key "${result.key}")`;
  return 'is not valid JSON';
}

/** Deepest container nesting of JSON text, scanning no further once `limit` is exceeded. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  // Each level opens with a character of its own: text no longer than the limit cannot exceed it.
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
