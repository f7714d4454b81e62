// The data types the spec names ("Data types named anywhere") and their size limits (decisions §8.8).

export const SCALAR_TYPES = [
  'single_line_text_field',
  'multi_line_text_field',
  'boolean',
  'date',
  'date_time',
  'weight',
  'volume',
  'dimension',
  'number_integer',
  'number_decimal',
  'url',
  'link',
  'file_reference',
  'rating',
  'json',
  'metaobject_reference',
] as const;

// Exactly the list variants the spec names: there is no list of multi-line text, booleans or json.
export const LIST_TYPES = [
  'list.single_line_text_field',
  'list.date',
  'list.date_time',
  'list.weight',
  'list.volume',
  'list.dimension',
  'list.number_integer',
  'list.number_decimal',
  'list.url',
  'list.link',
  'list.file_reference',
  'list.rating',
  'list.metaobject_reference',
] as const;

export type ScalarType = (typeof SCALAR_TYPES)[number];
export type ListType = (typeof LIST_TYPES)[number];
export type MetafieldType = ScalarType | ListType;
export type ListElementType = ListType extends `list.${infer E}` ? E : never;

export const METAFIELD_TYPES: readonly MetafieldType[] = [...SCALAR_TYPES, ...LIST_TYPES];

const SUPPORTED: ReadonlySet<string> = new Set<string>(METAFIELD_TYPES);
const LISTS: ReadonlySet<string> = new Set<string>(LIST_TYPES);

export function isSupportedType(type: unknown): type is MetafieldType {
  return typeof type === 'string' && SUPPORTED.has(type);
}

export function isListType(type: unknown): type is ListType {
  return typeof type === 'string' && LISTS.has(type);
}

/** The element type of a supported list type (`list.url` -> `url`); undefined for anything else. */
export function elementTypeOf(type: string): ListElementType | undefined {
  return isListType(type) ? (type.slice(5) as ListElementType) : undefined;
}

/** The type whose basic check and rules apply to one element (the type itself for scalars). */
export function checkedTypeOf(type: MetafieldType): ScalarType {
  return isListType(type) ? (type.slice(5) as ScalarType) : type;
}

// decisions §8.8: a value is at most 64 KB (json 128 KB, url 2 KB); lists hold at most 128 elements.
// KB is 1,024 bytes of the value's UTF-8 encoding. The url limit also bounds each element of list.url
// and the url of a link.
export const VALUE_MAX_BYTES = 64 * 1024;
export const JSON_VALUE_MAX_BYTES = 128 * 1024;
export const URL_MAX_BYTES = 2 * 1024;
export const LIST_MAX_ELEMENTS = 128;

export function maxBytesOf(type: MetafieldType): number {
  if (type === 'json') return JSON_VALUE_MAX_BYTES;
  if (type === 'url') return URL_MAX_BYTES;
  return VALUE_MAX_BYTES;
}

/** UTF-8 length of `s`, counting no further than `stopAbove` (returns a number above it once exceeded). */
export function utf8Length(s: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
    if (bytes > stopAbove) return bytes;
  }
  return bytes;
}

/** True when `s` is longer than `maxBytes` in UTF-8, without counting when the answer is obvious. */
export function exceedsBytes(s: string, maxBytes: number): boolean {
  if (s.length * 3 <= maxBytes) return false;
  if (s.length > maxBytes) return true;
  return utf8Length(s, maxBytes) > maxBytes;
}

/** Length in Unicode code points (decisions §8.13: text length counts code points). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
      n--;
      i++;
    }
  }
  return n;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
