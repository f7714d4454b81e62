import { MAX_ID } from '../pagination/parse-page-params';
import { decimalsUpTo } from '../text/decimal-range-pattern';

// decisions §8.8: the basic formats of the scalar types as regular expressions. The parsers
// (parse-scalars.ts) test a shape and judge the rest in code, each failure with its own message;
// the `*_TEXT` patterns state a whole format in one expression, for the OpenAPI document
// (`@platform/domain/limits`, define-value-schemas.ts). define-value-formats.property.test.ts holds
// each whole pattern to its parser on generated inputs, so the two cannot drift. A file that
// imports nothing heavy (the SDK bundles the contract, which reads it).

/** number_integer's bound: 2^53 - 1, the integers a double holds exactly. */
export const MAX_SAFE_INTEGER = 9_007_199_254_740_991;
export const DECIMAL_INTEGER_DIGITS = 13;
export const DECIMAL_FRACTION_DIGITS = 9;

/** number_integer's shape: base 10, an optional leading `-`, no `+`, exponent or leading zeros. */
export const INTEGER_SHAPE = /^-?(?:0|[1-9][0-9]*)$/;
/** number_integer whole: the shape within +/-MAX_SAFE_INTEGER (parseIntegerText). */
export const INTEGER_TEXT = new RegExp(`^-?${decimalsUpTo(BigInt(MAX_SAFE_INTEGER), false)}$`);

/**
 * number_decimal whole: at most 13 integer and 9 fraction digits, no leading zeros, exponent or `+`
 * (parseDecimalText reads it by hand, in the pass that also makes the double).
 */
export const DECIMAL_TEXT = new RegExp(`^-?(?:0|[1-9][0-9]{0,${DECIMAL_INTEGER_DIGITS - 1}})(?:\\.[0-9]{1,${DECIMAL_FRACTION_DIGITS}})?$`);

/** date's shape; parseDateText then checks the month and the day. */
export const DATE_SHAPE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

// A real date of the proleptic Gregorian calendar: months of 31 and 30 days, February to the 28th,
// and the 29th in leap years (divisible by 4 and not by 100, or by 400: year 0000 included).
const MONTH_DAY = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
const CALENDAR_DATE_BODY = `(?:[0-9]{4}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`;
/** date whole: YYYY-MM-DD, a real date (isDateText, parseDateText). */
export const CALENDAR_DATE = new RegExp(`^${CALENDAR_DATE_BODY}$`);

/** ISO 8601 extended format: date `T` hh:mm[:ss[.fraction]] [Z | +hh:mm | -hh:mm]; the parser's captures. */
export const DATE_TIME_SHAPE =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:[0-9]{2})?$/;
const HOUR = '(?:[01][0-9]|2[0-3])';
const MINUTE = '[0-5][0-9]';
/** date_time whole: a real date, hours to 23, minutes and seconds to 59, an offset within +/-23:59 (parseDateTimeText). */
export const DATE_TIME_TEXT = new RegExp(
  `^${CALENDAR_DATE_BODY}T${HOUR}:${MINUTE}(?::${MINUTE}(?:\\.[0-9]{1,9})?)?(?:Z|[+-]${HOUR}:${MINUTE})?$`,
);

/** single_line_text_field: no line break (hasLineBreak). */
export const SINGLE_LINE = /^[^\r\n]*$/;

/** Resource ids in global ids: decimal, no leading zeros, 1 to 2^63 - 1 (decisions §3.5; isResourceId). */
export const RESOURCE_ID = new RegExp(`^${decimalsUpTo(MAX_ID, false, true)}$`);
const ID_BODY = RESOURCE_ID.source.slice(1, -1);

export const FILE_GID_TYPES = ['MediaImage', 'Video', 'GenericFile'] as const;
export const GID_PREFIX = 'gid://platform/';
/** file_reference whole (parseFileReferenceText). */
export const FILE_REFERENCE_TEXT = new RegExp(`^${GID_PREFIX}(?:${FILE_GID_TYPES.join('|')})/${ID_BODY}$`);
/** metaobject_reference whole (parseMetaobjectReferenceText). */
export const METAOBJECT_REFERENCE_TEXT = new RegExp(`^${GID_PREFIX}Metaobject/${ID_BODY}$`);
