import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CALENDAR_DATE,
  DATE_TIME_TEXT,
  DECIMAL_TEXT,
  FILE_REFERENCE_TEXT,
  INTEGER_TEXT,
  MAX_SAFE_INTEGER,
  METAOBJECT_REFERENCE_TEXT,
  RESOURCE_ID,
  SINGLE_LINE,
} from './define-value-formats';
import {
  hasLineBreak,
  isDateText,
  isResourceId,
  parseDateTimeText,
  parseDecimalText,
  parseFileReferenceText,
  parseIntegerText,
  parseMetaobjectReferenceText,
} from './parse-scalars';
import { URL_TEXT, parseUrlText } from './parse-url';

// decisions §8.8, §12.9: the whole-format patterns the OpenAPI document states are held to the
// parsers the server runs, on generated inputs: strings each pattern itself generates, inputs built
// to cross every bound, and text from the format's alphabet. The patterns of the scalar types agree
// exactly; the url pattern takes every URL the parser takes, and what it takes besides is refused
// only by the WHATWG parser's reading of the host (or the byte bound), which the document says in words.

const RUNS = { numRuns: 3000 };
const accepts = (parsed: unknown) => typeof parsed !== 'string';
const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const alphabet = (chars: string, maxLength = 24) => fc.string({ unit: fc.constantFrom(...chars), maxLength });
/** Candidates: the pattern's own strings, then `others`. */
const candidates = (pattern: RegExp, ...others: fc.Arbitrary<string>[]) => fc.oneof(fc.stringMatching(pattern), ...others);

describe('the document’s patterns agree with the parsers (decisions §8.8)', () => {
  it('number_integer: INTEGER_TEXT is parseIntegerText, bound included', () => {
    const max = BigInt(MAX_SAFE_INTEGER);
    const integers = candidates(
      INTEGER_TEXT,
      fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }).map(String),
      fc.tuple(fc.boolean(), fc.bigInt({ min: -3n, max: 3n })).map(([negative, d]) => `${negative ? '-' : ''}${max + d}`),
      fc.tuple(fc.constantFrom('', '-', '+', '0', '-0', ' '), digits(0, 17), fc.constantFrom('', '.0', 'e1', ' ')).map((p) => p.join('')),
      alphabet('0123456789-+e. '),
    );
    fc.assert(
      fc.property(integers, (s) => {
        expect(INTEGER_TEXT.test(s), s).toBe(accepts(parseIntegerText(s)));
      }),
      RUNS,
    );
  });

  it('number_decimal: DECIMAL_TEXT is parseDecimalText, digit limits included', () => {
    const decimals = candidates(
      DECIMAL_TEXT,
      fc
        .tuple(fc.constantFrom('', '-', '+', '0', '-0'), digits(0, 16), fc.constantFrom('', '.', ','), digits(0, 12))
        .map((p) => p.join('')),
      fc
        .tuple(fc.constantFrom('', '-'), fc.integer({ min: 1, max: 9 }), digits(11, 13), fc.constantFrom('', '.'), digits(8, 10))
        .map((p) => p.join('')),
      alphabet('0123456789.-+eE x', 14),
    );
    fc.assert(
      fc.property(decimals, (s) => {
        expect(DECIMAL_TEXT.test(s), s).toBe(accepts(parseDecimalText(s)));
      }),
      RUNS,
    );
  });

  it('date: CALENDAR_DATE is isDateText for every year on 28, 29 and 30 February', () => {
    for (let year = 0; year <= 9999; year++) {
      for (const day of ['28', '29', '30']) {
        const s = `${pad(year, 4)}-02-${day}`;
        expect(CALENDAR_DATE.test(s), s).toBe(isDateText(s));
      }
    }
  });

  it('date: CALENDAR_DATE is isDateText on generated dates', () => {
    const dates = candidates(
      CALENDAR_DATE,
      fc
        .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
        .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
      alphabet('0123456789-/T:Z \n', 12),
    );
    fc.assert(
      fc.property(dates, (s) => {
        expect(CALENDAR_DATE.test(s), s).toBe(isDateText(s));
      }),
      RUNS,
    );
  });

  it('date_time: DATE_TIME_TEXT is parseDateTimeText', () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => pad(n, 2));
    const offset = fc.oneof(
      fc.constantFrom('', 'Z', 'z', '+0100', '+01'),
      fc.tuple(fc.constantFrom('+', '-'), two(25), two(61)).map(([sign, h, m]) => `${sign}${h}:${m}`),
    );
    const built = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }).map((y) => pad(y, 4)),
        two(13),
        two(32),
        fc.constantFrom('T', 'T', 'T', 't', ' '),
        two(25),
        two(61),
        fc.option(two(61), { nil: undefined }),
        fc.option(digits(0, 10), { nil: undefined }),
        offset,
      )
      .map(([y, mo, d, t, h, mi, s, fraction, zone]) => {
        const seconds = s === undefined ? '' : `:${s}${fraction === undefined ? '' : `.${fraction}`}`;
        return `${y}-${mo}-${d}${t}${h}:${mi}${seconds}${zone}`;
      });
    fc.assert(
      fc.property(candidates(DATE_TIME_TEXT, built, alphabet('0123456789-T:Z+. ', 30)), (s) => {
        expect(DATE_TIME_TEXT.test(s), s).toBe(accepts(parseDateTimeText(s)));
      }),
      RUNS,
    );
  });

  it('single_line_text_field: SINGLE_LINE is the absence of a line break', () => {
    const texts = candidates(SINGLE_LINE, fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r', '\u2028', '\u0085', '\t') }));
    fc.assert(
      fc.property(texts, (s) => {
        expect(SINGLE_LINE.test(s), JSON.stringify(s)).toBe(!hasLineBreak(s));
      }),
      RUNS,
    );
  });

  it('file_reference and metaobject_reference: the gid patterns are the parsers, 64-bit ids included', () => {
    const id = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String),
      fc.bigInt({ min: -3n, max: 3n }).map((d) => String(2n ** 63n - 1n + d)),
      fc.constantFrom('0', '01', '-1', '1a', '', ' 1'),
    );
    const type = fc.constantFrom('MediaImage', 'Video', 'GenericFile', 'Metaobject', 'Image', 'mediaimage', 'Product', '');
    const prefix = fc.constantFrom('gid://platform/', 'gid://platform/', 'gid://Platform/', 'gid:/platform/', '');
    const gids = fc.tuple(prefix, type, fc.constantFrom('/', '/', '//', ''), id).map((p) => p.join(''));
    fc.assert(
      fc.property(candidates(FILE_REFERENCE_TEXT, gids), (s) => {
        expect(FILE_REFERENCE_TEXT.test(s), s).toBe(accepts(parseFileReferenceText(s)));
      }),
      RUNS,
    );
    fc.assert(
      fc.property(candidates(METAOBJECT_REFERENCE_TEXT, gids), (s) => {
        expect(METAOBJECT_REFERENCE_TEXT.test(s), s).toBe(accepts(parseMetaobjectReferenceText(s)));
      }),
      RUNS,
    );
    fc.assert(
      fc.property(candidates(RESOURCE_ID, id), (s) => {
        expect(RESOURCE_ID.test(s), s).toBe(isResourceId(s));
      }),
      RUNS,
    );
  });

  it('url: URL_TEXT takes every URL parseUrlText takes, and more only where the URL parser or the byte bound decides', () => {
    const scheme = fc.constantFrom('http', 'https', 'HTTPS', 'hTtP', 'mailto', 'MailTo', 'sms', 'tel', 'TEL', 'ftp', 'javascript', 'h', '');
    const rest = fc.string({ unit: fc.constantFrom(...'ab.1/:@?#[]%\\ -_~'.split(''), 'é', '\t', '\u007f', '//'), maxLength: 20 });
    const built = fc.tuple(scheme, fc.constantFrom(':', '://', ':/', '', ':///'), rest).map((p) => p.join(''));
    const usual = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true, validSchemes: ['http', 'https'] }),
      fc.emailAddress().map((e) => `mailto:${e}`),
      digits(3, 12).map((d) => `tel:+${d}`),
      digits(3, 12).map((d) => `sms:${d}`),
    );
    const long = fc
      .tuple(fc.constantFrom('https://a.example/', 'tel:'), fc.integer({ min: 2000, max: 2100 }), fc.constantFrom('a', 'é'))
      .map(([head, n, c]) => head + c.repeat(n));
    // Fewer runs: fast-check's webUrl costs about 1 ms a URL.
    const runs = { numRuns: 1000 };
    fc.assert(
      fc.property(candidates(URL_TEXT, built, usual, long), (s) => {
        const parsed = parseUrlText(s);
        if (accepts(parsed)) expect(URL_TEXT.test(s), s).toBe(true);
        else if (URL_TEXT.test(s)) expect(parsed, s).toMatch(/^(is not a valid URL|is too long \(maximum is 2048 bytes\))$/);
      }),
      runs,
    );
  });
});
