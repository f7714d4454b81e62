import {
  APP_NAMESPACE_LOOKALIKE,
  METAFIELD_TYPES,
  RULE_NAMES,
  RULE_TYPES,
  EMAIL,
  EMAIL_MAX_LENGTH,
  STORE_NAME,
  INSTANT,
  OUT_OF_STORED_RANGE_DATES,
  KEY_LENGTH,
  LIMIT_MAX,
  MAX_ID,
  NAMESPACE_LENGTH,
  STORE_HANDLE,
  decimalsUpTo,
  valueSchemaOf,
} from '@platform/domain/limits';

type JsonSchema = { [keyword: string]: unknown };

// JSON Schema of the rules the domain's validators enforce, built from the domain's constants. The
// contract attaches them with `documented` (openapi-json-schema.ts): the server's checks and their
// messages stay the domain's, the document states the same rules.

/** The decimal integers 0..max as a regular expression's body (the domain's, which its own patterns use too). */
export { decimalsUpTo };

/** A pattern of the decimal integers 0..max, leading zeros allowed (as the server reads `since_id` and `id`). */
export function decimalAtMost(max: bigint): string {
  return `^0*${decimalsUpTo(max, true)}$`;
}

/** decisions §3.5: an id, as a decimal string of a 64-bit integer. */
export const ID_RULES: JsonSchema = { pattern: decimalAtMost(MAX_ID), examples: ['42'] };

/** decisions §3.5, §8.9: a product id in a body, without leading zeros, or the product's global id. */
export const PRODUCT_ID_RULES: JsonSchema = { pattern: `^(?:gid://platform/Product/)?${decimalsUpTo(MAX_ID, false)}$`, examples: ['42'] };

/** decisions §6.1: records per page. Query text on the wire, an integer for the document. */
export const LIMIT_RULES: JsonSchema = { type: 'integer', minimum: 1, maximum: LIMIT_MAX, examples: [50] };

/** decisions §6.2: the cursor the link header carries (`{payload}.{mac}`, base64url). */
export const PAGE_INFO_RULES: JsonSchema = {
  pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
  description:
    'Subsequent-page mode: the opaque cursor of the link header, as it stands. A cursor this service did not issue for this ' +
    'listing and store is 400 `page_info: is invalid`; with one, every filter except limit and fields is ignored.',
};

/** decisions §1.5. */
export const STORE_HANDLE_RULES: JsonSchema = { pattern: STORE_HANDLE.source, minLength: 3, maxLength: 63, examples: ['demo'] };

/**
 * decisions §3.3: a request time (the one ISO 8601 form the service reads), on a date whose instant
 * is stored whatever its offset: 1970-01-02 to 9999-12-29 (the server takes 1970-01-01T00:00:00Z to
 * 9999-12-30T23:59:59Z; the two edge days depend on the offset, which a pattern cannot weigh).
 */
export const TIME_RULES: JsonSchema = {
  format: 'date-time',
  pattern: INSTANT.source,
  // `type` in the `not`: a nullable field's null is not a string, so `not` lets it through.
  not: { type: 'string', pattern: OUT_OF_STORED_RANGE_DATES.source },
  examples: ['2026-11-22T12:05:01+08:00'],
};

/** Text with something besides white space (the server trims to judge blankness); NUL never (json-shape). */
export const NOT_BLANK = '^[^\\S\\u0000]*[^\\s\\u0000][^\\u0000]*$';

const NAME = `[A-Za-z0-9_-]{${NAMESPACE_LENGTH.min},${NAMESPACE_LENGTH.max}}`;

/** decisions §12.9: what an operator may store as a store's e-mail address. */
export const EMAIL_RULES: JsonSchema = {
  format: 'email',
  pattern: EMAIL.source,
  maxLength: EMAIL_MAX_LENGTH,
  examples: ['owner@demo.example'],
};

/** decisions §12.9: a store name (no control characters, not blank). */
export const STORE_NAME_RULES: JsonSchema = { pattern: STORE_NAME.source, examples: ['Demo store'] };

/** What follows the scheme of a URL the server takes: host (or IP literal) and port, then path and query. */
const URL_AFTER_SCHEME = /:\/\/[A-Za-z0-9.\-[\]:]+(?:[/?][^\s\\<>"'`^{}|#@]*)?$/;

/** An http(s) URL as the server reads it: absolute, no credentials, spaces, quotes, backslashes or fragment. */
export function urlRules(schemes: 'https' | 'http(s)', maxLength = 2048): JsonSchema {
  const pattern = `^${schemes === 'https' ? 'https' : 'https?'}${URL_AFTER_SCHEME.source}`;
  return { format: 'uri', maxLength, pattern, examples: ['https://app.example.com/hooks'] };
}

/** IANA time zones as this runtime knows them (the server checks a zone with the same Intl), and UTC. */
export function timeZoneRules(): JsonSchema {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.length > 0 ? { enum: ['UTC', ...zones.filter((z) => z !== 'UTC')] } : { pattern: '^[A-Za-z][A-Za-z0-9_+\\-/]*$' };
}

/** decisions §8.2: a key. */
export const KEY_RULES: JsonSchema = { pattern: `^[A-Za-z0-9_-]{${KEY_LENGTH.min},${KEY_LENGTH.max}}$`, examples: ['size'] };

/**
 * decisions §8.2: a namespace as a request names it. `$app:x` (the calling app's), a shared name that
 * does not read as an app's, or (`stored: true`) the stored spelling `app--{app id}--x`, which names
 * another app's namespace only to be refused for the state of the data (404/403). `callerApp: false`
 * for the merchant's view, which has no `$app:` of its own.
 */
export function namespaceRules(stored: boolean, callerApp = true): JsonSchema {
  // `type` in each branch, not only beside `anyOf`: generators (openapi-typescript) type a branch without one as `unknown`.
  const branches: JsonSchema[] = [{ type: 'string', pattern: `^${NAME}$`, not: { pattern: APP_NAMESPACE_LOOKALIKE.source } }];
  // `$app:` names the calling app's namespace: the merchant (operator API) is no app.
  if (callerApp) branches.unshift({ type: 'string', pattern: `^\\$app:${NAME}$` });
  if (stored) branches.push({ type: 'string', pattern: `^app--[1-9][0-9]*--${NAME}$` });
  return { anyOf: branches, examples: ['custom'] };
}

/** Letters, digits, `-` and `_`, within `length` (metaobject types and handles). */
export function handleRules(length: { min: number; max: number }): JsonSchema {
  return { pattern: `^[A-Za-z0-9_-]{${length.min},${length.max}}$`, examples: ['colour'] };
}

/** Free text with something besides white space, at most `max` characters (code points). */
export function textRules(max: number): JsonSchema {
  return { pattern: NOT_BLANK, maxLength: max, examples: ['Size'] };
}

/** Decimal text the server reads (`pattern`), or a JSON integer within its digits. */
export function decimalInputRules(pattern: RegExp, integerDigits: number): JsonSchema {
  const bound = 10 ** integerDigits - 1;
  return {
    anyOf: [
      { type: 'string', pattern: pattern.source },
      { type: 'integer', minimum: -bound, maximum: bound },
    ],
  };
}

/**
 * decisions §8.3, spec "Validation rule object": which rule names a definition of each type takes,
 * and each name at most once; stated on the definition object (its `type` decides).
 */
export function definitionRules(): JsonSchema {
  return {
    allOf: METAFIELD_TYPES.map((type) => {
      const names = RULE_NAMES.filter((name) => RULE_TYPES[name].includes(type));
      // A type that takes no rule (boolean) takes an empty list only.
      const list = names.length > 0 ? { type: 'array', items: { properties: { name: { enum: names } } } } : { type: 'array', maxItems: 0 };
      return {
        if: { properties: { type: { const: type } }, required: ['type'] },
        then: { properties: { validations: { anyOf: [{ type: 'null' }, list] } } },
      };
    }),
  };
}

/** Each rule name at most once in a definition's validations (2020-12's maxContains). */
export const VALIDATIONS_RULES: JsonSchema = {
  maxItems: RULE_NAMES.length,
  allOf: RULE_NAMES.map((name) => ({
    contains: { properties: { name: { const: name } }, required: ['name'] },
    minContains: 0,
    maxContains: 1,
  })),
};

/**
 * decisions §8.8, §8.9: a metafield value's basic format, by the type its request names. One branch
 * a type, with the value's schema (define-value-schemas.ts in the domain: patterns, enums, lengths,
 * and for JSON text `contentMediaType` with a `contentSchema`), and one for a request without a
 * type, whose value's format is the stored definition's (or the stored value's) type: a state the
 * document cannot know. Stated on the request object, for the document only: the SDK's types stay
 * zod's (a union of 30 object types would help no caller).
 */
export function valueFormatRules(): JsonSchema {
  // anyOf, not oneOf: the branches exclude one another (each its `type`; the last no type), but a
  // linter cannot tell an optional property apart (Redocly's no-illogical-composition-keywords).
  return {
    anyOf: [
      // `type: object` in each branch, as namespaceRules' `type: string`: generators type a branch without one as unknown.
      ...METAFIELD_TYPES.map((type) => ({
        title: type,
        type: 'object',
        properties: { type: { const: type }, value: valueSchemaOf(type) },
        required: ['type'],
      })),
      {
        title: 'type omitted',
        type: 'object',
        description: "The value's format is the type of its stored definition, or of the stored value (an update).",
        properties: { type: { const: null } },
      },
    ],
  };
}
