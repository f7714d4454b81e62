import { Decimal } from 'decimal.js';

// Exact decimal arithmetic for comparisons (decisions §8.13). Values carry at most 22 significant
// digits and unit factors at most 13, so 80 digits keeps every product exact.
export const Dec = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });

export type MeasureDimension = 'weight' | 'volume' | 'dimension';
export type FileGidType = 'MediaImage' | 'Video' | 'GenericFile';

// Parsed values keep the text as written (nothing is rewritten, decisions §8.8) next to what the
// rules compare.
export interface TextValue {
  readonly kind: 'text';
  readonly text: string;
}
export interface BooleanValue {
  readonly kind: 'boolean';
  readonly value: boolean;
}
export interface IntegerValue {
  readonly kind: 'integer';
  readonly value: number;
}
export interface DecimalValue {
  readonly kind: 'decimal';
  readonly text: string;
  readonly value: Decimal;
  /** The nearest double: compared first, the exact `value` decides when the two are too close to tell. */
  readonly approximate: number;
  /** Digits after the decimal point as written (`1.50` has 2). */
  readonly fractionDigits: number;
  /**
   * At most 15 significant digits as written (DBL_DIG): no two different decimals of at most 15
   * significant digits have the same nearest double, so two such values with equal doubles are
   * equal. Absent: not known.
   */
  readonly fewDigits?: boolean;
}
export interface DateValue {
  readonly kind: 'date';
  readonly text: string;
  /** year * 10000 + month * 100 + day: orders calendar dates. */
  readonly ordinal: number;
}
export interface DateTimeValue {
  readonly kind: 'date_time';
  readonly text: string;
  /** The instant: whole seconds since 1970-01-01T00:00:00Z plus nanoseconds. */
  readonly epochSeconds: number;
  readonly nanos: number;
}
export interface MeasureValue {
  readonly kind: 'measure';
  readonly dimension: MeasureDimension;
  readonly valueText: string;
  readonly value: Decimal;
  /** The nearest double of the value (in `unit`), as for decimals. */
  readonly approximate: number;
  readonly unit: string;
}
export interface RatingValue {
  readonly kind: 'rating';
  readonly value: Decimal;
  readonly scaleMin: Decimal;
  readonly scaleMax: Decimal;
}
export interface UrlValue {
  readonly kind: 'url';
  readonly href: string;
  /** Lower-case scheme without the colon. */
  readonly scheme: string;
  /** `scheme://host[:port]` with default ports dropped, for http and https; null for the others. */
  readonly origin: string | null;
}
export interface LinkValue {
  readonly kind: 'link';
  readonly text: string;
  readonly url: UrlValue;
}
export interface FileReferenceValue {
  readonly kind: 'file_reference';
  readonly gid: string;
  readonly fileType: FileGidType;
  readonly id: string;
}
export interface MetaobjectReferenceValue {
  readonly kind: 'metaobject_reference';
  readonly gid: string;
  readonly id: string;
}
export interface JsonValue {
  readonly kind: 'json';
  readonly text: string;
  readonly value: unknown;
}

export type ScalarValue =
  | TextValue
  | BooleanValue
  | IntegerValue
  | DecimalValue
  | DateValue
  | DateTimeValue
  | MeasureValue
  | RatingValue
  | UrlValue
  | LinkValue
  | FileReferenceValue
  | MetaobjectReferenceValue
  | JsonValue;

export interface ListValue {
  readonly kind: 'list';
  /** null stands for an empty element (`""`), which is allowed and skips the element rules (decisions §2.6). */
  readonly elements: readonly (ScalarValue | null)[];
}

/** `""` accepted before v20260901 (decisions §2.6); no rule ran on it. */
export interface EmptyValue {
  readonly kind: 'empty';
}

export type ParsedValue = ScalarValue | ListValue;
/** Alias: what `parseValue` returns. */
export type Parsed = ParsedValue;
