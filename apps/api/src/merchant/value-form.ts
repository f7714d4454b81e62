import { elementTypeOf, isListType, LIST_MAX_ELEMENTS } from '@platform/domain';
import type { FormFields } from './merchant-session.guard';

/** The control a value's type gets on the product page (issue 18, 2). */
export type Control = 'text' | 'textarea' | 'number' | 'date' | 'boolean' | 'json' | 'list';

const CONTROLS: Record<string, Control> = {
  multi_line_text_field: 'textarea',
  number_integer: 'number',
  number_decimal: 'number',
  date: 'date',
  boolean: 'boolean',
  json: 'json',
  weight: 'json',
  volume: 'json',
  dimension: 'json',
  rating: 'json',
  link: 'json',
};

export function controlOf(type: string): Control {
  return isListType(type) ? 'list' : (CONTROLS[type] ?? 'text');
}

/** Elements of a list whose JSON form is an object (decisions §8.8): typed as JSON text, one per row. */
const OBJECT_ELEMENTS = new Set(['weight', 'volume', 'dimension', 'rating', 'link']);

/** Empty rows a list editor offers after its elements (more after each save). */
export const SPARE_LIST_ROWS = 3;

/** A stored list value's elements as the list editor shows them (a value that is no JSON array: one row of its text). */
export function listElements(value: string): string[] {
  try {
    const parsed: unknown = JSON.parse(value);
    if (!Array.isArray(parsed)) return [value];
    return parsed.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
  } catch {
    return [value];
  }
}

/**
 * The list editor's rows as the value text the API takes (decisions §8.8): integers as JSON numbers,
 * measures, ratings and links as the JSON objects typed, everything else as JSON strings. A row
 * that does not read as its element type is sent as a string, so the API's check names it
 * (`value[1]: ...`) instead of the form guessing. Empty rows are dropped.
 */
export function encodeList(type: string, rows: readonly string[]): string {
  const element: string | undefined = elementTypeOf(type);
  const parts = rows
    .filter((row) => row.trim() !== '')
    .map((row) => {
      if (element === 'number_integer' && /^-?[0-9]+$/.test(row)) return row;
      if (element !== undefined && OBJECT_ELEMENTS.has(element)) {
        try {
          const parsed: unknown = JSON.parse(row);
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return JSON.stringify(parsed);
        } catch {
          // Not JSON: sent as text, refused by the API's basic check with its own message.
        }
      }
      return JSON.stringify(row);
    });
  return `[${parts.join(',')}]`;
}

/** The posted rows of a list field `id` (`id.0`, `id.1`, ...), at most the list limit plus the spare rows. */
export function postedRows(form: FormFields, id: string): string[] | undefined {
  const rows: string[] = [];
  for (let i = 0; i < LIST_MAX_ELEMENTS + SPARE_LIST_ROWS; i++) {
    const row = form[`${id}.${i}`];
    if (row === undefined) break;
    rows.push(row);
  }
  return rows.length > 0 || form[`${id}.0`] !== undefined ? rows : undefined;
}

/**
 * What the merchant typed for one field, as the value text to write, or undefined when the form
 * did not carry the field or it says what is stored already (only changes are written, so an
 * untouched value that a re-check marked invalid never blocks fixing another).
 */
export function changedValue(form: FormFields, id: string, type: string, stored: string | undefined): string | undefined {
  if (controlOf(type) === 'list') {
    const rows = postedRows(form, id);
    if (rows === undefined) return undefined;
    const value = encodeList(type, rows);
    if (stored === undefined) return value === '[]' ? undefined : value;
    return value === encodeList(type, listElements(stored)) ? undefined : value;
  }
  const value = form[id];
  if (value === undefined) return undefined;
  if (stored === undefined) return value === '' ? undefined : value;
  return value === stored ? undefined : value;
}
