import { html, type Html } from '../merchant-page';

/** Problems found in a posted form, by the form field they are shown beside ('' for the whole form). */
export type FieldErrors = ReadonlyMap<string, readonly string[]>;

export const NO_ERRORS: FieldErrors = new Map();

/** The id of a field's error list, for `aria-describedby`. */
const errorId = (name: string) => `${name}-error`;

/** A control's attributes that tie it to its errors (and its hint, by id): `aria-invalid`, `aria-describedby`. */
export function errorAttributes(name: string, errors: FieldErrors, hintId?: string): Html {
  const described = [hintId, errors.has(name) ? errorId(name) : undefined].filter((id) => id !== undefined).join(' ');
  return html`${errors.has(name) ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}`;
}

/** The problems of one field, beside it (the API's own messages). */
export function fieldErrors(name: string, errors: FieldErrors): Html | string {
  const list = errors.get(name);
  if (!list || list.length === 0) return '';
  return html`<ul class="field-errors" id="${errorId(name)}">${list.map((m) => html`<li>${m}</li>`)}</ul>`;
}

/** The problems of the whole form (those of no single field), and how many fields were refused. */
export function formErrors(errors: FieldErrors, what: string): Html | string {
  if (errors.size === 0) return '';
  const general = errors.get('') ?? [];
  const fields = errors.size - (errors.has('') ? 1 : 0);
  return html`<section class="card error" role="alert"><h2>${what}</h2>
${fields > 0 ? html`<p>${fields === 1 ? '1 field needs' : `${fields} fields need`} a change: see the messages beside ${fields === 1 ? 'it' : 'them'}.</p>` : ''}
${general.length > 0 ? html`<ul>${general.map((m) => html`<li>${m}</li>`)}</ul>` : ''}</section>`;
}

/** A labelled text input with its errors. */
export function textField(
  label: string,
  name: string,
  value: string,
  errors: FieldErrors,
  options: { hint?: string; required?: boolean; inputmode?: string; type?: string } = {},
): Html {
  const hintId = `${name}-hint`;
  return html`<div class="field"><label for="${name}">${label}</label>
${options.hint ? html`<p class="hint" id="${hintId}">${options.hint}</p>` : ''}
<input id="${name}" name="${name}" type="${options.type ?? 'text'}" value="${value}"${options.required ? html` required` : ''}${
    options.inputmode ? html` inputmode="${options.inputmode}"` : ''
  }${errorAttributes(name, errors, options.hint ? hintId : undefined)}>
${fieldErrors(name, errors)}</div>`;
}

/** A labelled select with its errors; `options` are [value, words]. */
export function selectField(
  label: string,
  name: string,
  value: string,
  options: readonly (readonly [string, string])[],
  errors: FieldErrors,
): Html {
  return html`<div class="field"><label for="${name}">${label}</label>
<select id="${name}" name="${name}"${errorAttributes(name, errors)}>${options.map(
    ([v, words]) => html`<option value="${v}"${v === value ? html` selected` : ''}>${words}</option>`,
  )}</select>
${fieldErrors(name, errors)}</div>`;
}

/** A labelled multi-line text with its errors. */
export function textArea(label: string, name: string, value: string, errors: FieldErrors, rows = 3): Html {
  return html`<div class="field"><label for="${name}">${label}</label>
<textarea id="${name}" name="${name}" rows="${rows}"${errorAttributes(name, errors)}>${value}</textarea>
${fieldErrors(name, errors)}</div>`;
}

/**
 * A table that becomes stacked rows on a phone (admin.css): each cell carries its column's name in
 * `data-label`, shown before it when the header row is hidden, so no column is squeezed until its
 * words break in two. A cell's content is one block (`.cell`), so all of it sits beside its label
 * (a product's title and its id were two grid items, and the id fell under the label).
 */
export function table(caption: string, columns: readonly string[], rows: readonly (readonly (Html | string)[])[]): Html {
  return html`<table class="stack"><caption class="visually-hidden">${caption}</caption>
<thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell, i) => html`<td data-label="${columns[i] ?? ''}"><div class="cell">${cell}</div></td>`)}</tr>`)}</tbody></table>`;
}

/** A notice after an action (role=status, read out by screen readers). */
export function notice(text: Html | string): Html {
  return html`<section class="card notice" role="status"><p>${text}</p></section>`;
}

/** Previous / Next links of a list paged by id. */
export function pager(previous: string | undefined, next: string | undefined): Html | string {
  if (!previous && !next) return '';
  return html`<div class="actions">${previous ? html`<a class="button" rel="prev" href="${previous}">Previous</a>` : ''}${
    next ? html`<a class="button" rel="next" href="${next}">Next</a>` : ''
  }</div>`;
}

/** A state in a coloured pill. */
export function pill(words: string, tone: 'ok' | 'warn' | 'bad'): Html {
  return html`<span class="state ${tone === 'warn' ? '' : tone}">${words}</span>`;
}
