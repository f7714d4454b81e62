import fc from 'fast-check';
import { unitsOf } from './convert-units';

// decisions §8.8: each type's valid values as the raw text a client sends, list elements, and near
// misses, for the property tests of the basic check (parse-value.property.test.ts) and of the
// document's value schemas (define-value-schemas.property.test.ts).

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const digitString = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

// A decimal as the spec writes it: at most 13 integer and 9 fraction digits, no leading zeros.
export const decimalText = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 13n - 1n }), digitString(0, 9))
  .map(([negative, whole, fraction]) => `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`);

export const instant = fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true });
const dateText = instant.map((d) => d.toISOString().slice(0, 10));
export const offsetMinutes = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
// The instant written in a zone `offset` minutes from UTC, as ISO 8601 with that offset.
const dateTimeText = fc.tuple(instant, offsetMinutes, fc.boolean()).map(([d, offset, withZ]) => {
  if (withZ) return d.toISOString();
  const local = new Date(d.getTime() + offset * 60_000).toISOString().slice(0, 23);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${local}${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
});

const singleLine = fc.string({ maxLength: 40 }).filter((s) => !/[\r\n]/.test(s));
export const webUrl = fc.webUrl({ withQueryParameters: true, withFragments: true });
const url = fc.oneof(
  webUrl,
  // An address whose local part starts with `//` is not a valid mailto URL (parse-url: no
  // authority after mailto:, sms: or tel:); the generator may make one (seed -797842301).
  fc
    .emailAddress()
    .filter((e) => !e.startsWith('//'))
    .map((e) => `mailto:${e}`),
  digitString(3, 12).map((d) => `tel:+${d}`),
  digitString(3, 12).map((d) => `sms:${d}`),
);
const id = fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }).map(String);
const fileGid = fc.tuple(fc.constantFrom('MediaImage', 'Video', 'GenericFile'), id).map(([t, i]) => `gid://platform/${t}/${i}`);
const metaobjectGid = id.map((i) => `gid://platform/Metaobject/${i}`);
const measure = (dimension: 'weight' | 'volume' | 'dimension') =>
  fc.tuple(decimalText, fc.constantFrom(...unitsOf(dimension))).map(([v, unit]) => ({ value: v, unit }));
const measureJson = (m: { value: string; unit: string }) => `{"value":${m.value},"unit":${JSON.stringify(m.unit)}}`;
// A rating within its own scale: scale_min <= value <= scale_max.
const rating = fc
  .tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 1000 }), fc.nat(), digitString(0, 3), fc.boolean())
  .map(([min, span, at, fraction, atMax]) => {
    const whole = min + (at % span);
    const value = atMax ? String(min + span) : fraction === '' ? String(whole) : `${whole}.${fraction}`;
    return { value, scale_min: String(min), scale_max: String(min + span) };
  });
const link = fc.record({ text: fc.string({ maxLength: 30 }), url: webUrl });

// Each type's valid values, as the raw text a client sends.
export const VALID: Readonly<Record<string, fc.Arbitrary<string>>> = {
  single_line_text_field: singleLine,
  multi_line_text_field: fc.string({ maxLength: 60 }),
  boolean: fc.boolean().map(String),
  date: dateText,
  date_time: dateTimeText,
  weight: measure('weight').map(measureJson),
  volume: measure('volume').map(measureJson),
  dimension: measure('dimension').map(measureJson),
  number_integer: fc.integer({ min: -MAX_SAFE, max: MAX_SAFE }).map(String),
  number_decimal: decimalText,
  url,
  link: link.map((l) => JSON.stringify(l)),
  file_reference: fileGid,
  rating: rating.map((r) => JSON.stringify(r)),
  json: fc.json(),
  metaobject_reference: metaobjectGid,
};

// Elements as lists encode them: integers as numbers, decimals as strings or numbers, objects as
// objects, the rest as strings; an empty element ("") is allowed anywhere.
export const ELEMENTS: Readonly<Record<string, fc.Arbitrary<string>>> = {
  single_line_text_field: singleLine.map((s) => JSON.stringify(s)),
  date: dateText.map((s) => JSON.stringify(s)),
  date_time: dateTimeText.map((s) => JSON.stringify(s)),
  weight: measure('weight').map(measureJson),
  volume: measure('volume').map(measureJson),
  dimension: measure('dimension').map(measureJson),
  number_integer: fc.integer({ min: -MAX_SAFE, max: MAX_SAFE }).map(String),
  number_decimal: fc.oneof(
    decimalText.map((s) => JSON.stringify(s)),
    decimalText,
  ),
  url: url.map((s) => JSON.stringify(s)),
  link: link.map((l) => JSON.stringify(l)),
  file_reference: fileGid.map((s) => JSON.stringify(s)),
  rating: rating.map((r) => JSON.stringify(r)),
  metaobject_reference: metaobjectGid.map((s) => JSON.stringify(s)),
};

export const listOf = (element: fc.Arbitrary<string>) =>
  fc.array(fc.oneof({ weight: 9, arbitrary: element }, { weight: 1, arbitrary: fc.constant('""') }), { maxLength: 20 });

// Near misses: each a small change that makes the value wrong.
const insertAt = (s: string, at: number, piece: string) => s.slice(0, at % (s.length + 1)) + piece + s.slice(at % (s.length + 1));
export const INVALID: Readonly<Record<string, fc.Arbitrary<string>>> = {
  single_line_text_field: fc.tuple(singleLine, fc.nat(), fc.constantFrom('\n', '\r')).map(([s, at, br]) => insertAt(s, at, br)),
  multi_line_text_field: fc.string({ maxLength: 20 }).map((s) => s + 'x'.repeat(65537)),
  boolean: fc.string({ maxLength: 8 }).filter((s) => s !== 'true' && s !== 'false'),
  date: fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 })).map(([y, m]) => {
      const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
      const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] as number;
      return `${pad(y, 4)}-${pad(m, 2)}-${pad(days + 1, 2)}`;
    }),
    dateText.map((d) => d.replace(/-(\d\d)-/, (_, m: string) => `-${Number(m) + 12}-`)),
    dateText.map((d) => d.replaceAll('-', '/')),
  ),
  date_time: fc.oneof(
    dateTimeText.map((t) => t.replace('T', ' ')),
    fc.tuple(dateTimeText, fc.integer({ min: 24, max: 99 })).map(([t, h]) => `${t.slice(0, 11)}${h}${t.slice(13)}`),
    dateTimeText.map((t) => `${t.slice(0, 19)}+24:00`),
  ),
  weight: fc
    .tuple(
      decimalText,
      fc.string({ maxLength: 5 }).filter((u) => !unitsOf('weight').includes(u)),
    )
    .map(([v, unit]) => measureJson({ value: v, unit })),
  volume: measure('volume').map((m) => `{"value":"${m.value}","unit":"${m.unit}"}`),
  dimension: measure('dimension').map((m) => `{"value":${m.value},"unit":"${m.unit}","extra":true}`),
  number_integer: fc.oneof(
    fc.bigInt({ min: BigInt(MAX_SAFE) + 1n, max: 10n ** 30n }).map((n) => (n % 2n === 0n ? String(n) : `-${n}`)),
    fc.integer().map((n) => `${n}.0`),
    fc.nat().map((n) => `+${n}`),
    fc.nat().map((n) => `${n}e1`),
  ),
  number_decimal: fc.oneof(
    fc.bigInt({ min: 10n ** 13n, max: 10n ** 20n }).map(String),
    fc.tuple(fc.nat(), digitString(10, 14)).map(([w, f]) => `${w}.${f}`),
    decimalText.filter((d) => !d.startsWith('-')).map((d) => `+${d}`),
  ),
  url: fc
    .tuple(
      fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/).filter((s) => !['http', 'https', 'mailto', 'sms', 'tel'].includes(s)),
      fc.domain(),
    )
    .map(([scheme, host]) => `${scheme}://${host}`),
  link: link.map((l) => JSON.stringify({ text: l.text })),
  file_reference: fc.tuple(fc.constantFrom('Image', 'Product', 'Metaobject', 'mediaimage'), id).map(([t, i]) => `gid://platform/${t}/${i}`),
  rating: rating.map((r) => JSON.stringify({ ...r, value: String(Number(r.scale_max) + 1) })),
  json: fc.json().map((j) => `${j},`),
  metaobject_reference: fc.oneof(
    id.map((i) => `gid://platform/Metaobject/0${i}`),
    id.map((i) => `gid://platform/MetaobjectDefinition/${i}`),
    id,
  ),
};
