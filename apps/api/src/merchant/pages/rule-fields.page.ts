import type { NormalizedRule } from '@platform/domain';
import { html, type Html } from '../merchant-page';
import { FILE_KINDS, postedRuleRows, ruleFieldsFor, SPARE_ROWS, type RuleField } from '../rule-fields';
import { errorAttributes, fieldErrors, textField, type FieldErrors } from './parts';
import { typeWords } from './words';

// The rule fields of a definition's type (issue 47): each rule a control of its kind with a
// one-line help, the advanced ones (a regular expression, a JSON schema) folded under "Advanced".

type Values = Readonly<Record<string, string>>;

const hintId = (name: string) => `${name}-hint`;

/** A group's description: its hint, and its problems when it has some (no aria-invalid: a fieldset is no control). */
const groupDescribedBy = (name: string, errors: FieldErrors) =>
  html` aria-describedby="${hintId(name)}${errors.has(name) ? ` ${name}-error` : ''}"`;

function rowsControl(field: RuleField, values: Values, errors: FieldErrors): Html {
  const rows = postedRuleRows(values, field.name);
  const all = [...rows.filter((r) => r !== ''), ...Array.from({ length: SPARE_ROWS }, () => '')];
  return html`<fieldset class="field"${groupDescribedBy(field.name, errors)}><legend>${field.label}</legend>
<p class="hint" id="${hintId(field.name)}">${field.help}</p>
<ol class="list-editor">${all.map(
    (row, i) =>
      html`<li><label for="${field.name}.${i}" class="visually-hidden">${field.label}, row ${i + 1}</label><input id="${field.name}.${i}" name="${field.name}.${i}" type="text" value="${row}"></li>`,
  )}</ol>
${fieldErrors(field.name, errors)}</fieldset>`;
}

function kindsControl(field: RuleField, values: Values, errors: FieldErrors): Html {
  return html`<fieldset class="field"${groupDescribedBy(field.name, errors)}><legend>${field.label}</legend>
<p class="hint" id="${hintId(field.name)}">${field.help}</p>
${FILE_KINDS.map(
  ([kind, words]) =>
    html`<label class="check"><input type="checkbox" name="${field.name}.${kind}" value="on"${values[`${field.name}.${kind}`] === 'on' ? html` checked` : ''}> ${words}</label>`,
)}
${fieldErrors(field.name, errors)}</fieldset>`;
}

function measureControl(field: RuleField, values: Values, errors: FieldErrors): Html {
  const unit = values[`${field.name}.unit`] ?? field.units?.[0] ?? '';
  return html`<div class="field"><label for="${field.name}">${field.label}</label>
<p class="hint" id="${hintId(field.name)}">${field.help}</p>
<div class="measure"><input id="${field.name}" name="${field.name}" type="text" inputmode="decimal" value="${values[field.name] ?? ''}"${errorAttributes(
    field.name,
    errors,
    hintId(field.name),
  )}><label for="${field.name}.unit" class="visually-hidden">Unit of the ${field.label.toLowerCase()}</label><select id="${field.name}.unit" name="${field.name}.unit">${(
    field.units ?? []
  ).map((u) => html`<option value="${u}"${u === unit ? html` selected` : ''}>${u}</option>`)}</select></div>
${fieldErrors(field.name, errors)}</div>`;
}

function control(field: RuleField, values: Values, errors: FieldErrors): Html {
  const value = values[field.name] ?? '';
  switch (field.control) {
    case 'rows':
      return rowsControl(field, values, errors);
    case 'kinds':
      return kindsControl(field, values, errors);
    case 'measure':
      return measureControl(field, values, errors);
    case 'schema':
      return html`<div class="field"><label for="${field.name}">${field.label}</label>
<p class="hint" id="${hintId(field.name)}">${field.help}</p>
<textarea id="${field.name}" name="${field.name}" rows="${value.length > 200 ? 12 : 4}" class="mono" spellcheck="false"${errorAttributes(
        field.name,
        errors,
        hintId(field.name),
      )}>${value}</textarea>
${fieldErrors(field.name, errors)}</div>`;
    case 'count':
      return textField(field.label, field.name, value, errors, { hint: field.help, inputmode: 'numeric' });
    case 'number':
      return textField(field.label, field.name, value, errors, { hint: field.help, inputmode: 'decimal' });
    case 'date':
      // A bound written as a date and time (the API takes either) stays text, so nothing typed is lost.
      return textField(field.label, field.name, value, errors, {
        hint: field.help,
        type: value === '' || /^\d{4}-\d{2}-\d{2}$/.test(value) ? 'date' : 'text',
      });
    default:
      return textField(field.label, field.name, value, errors, { hint: field.help });
  }
}

/** The rules fieldset of a definition form of `type`: its rule fields, the advanced ones folded. */
export function ruleFieldset(type: string, values: Values, errors: FieldErrors): Html {
  const fields = ruleFieldsFor(type);
  const plain = fields.filter((f) => !f.advanced);
  const advanced = fields.filter((f) => f.advanced);
  // Open when it holds something: a rule set there, or a problem to fix.
  const open = advanced.some((f) => (values[f.name] ?? '') !== '' || errors.has(f.name));
  return html`<fieldset class="field rules"${errors.has('rules') ? html` aria-describedby="rules-error"` : ''}><legend>Validation rules</legend>
${
  fields.length === 0
    ? html`<p class="hint">${typeWords(type)} values take no rules.</p>`
    : html`<p class="hint">Optional: leave a rule empty to have none. Values are checked against them when they are written.</p>`
}
${plain.map((f) => control(f, values, errors))}
${
  advanced.length > 0
    ? html`<details class="advanced"${open ? html` open` : ''}><summary>Advanced</summary>${advanced.map((f) => control(f, values, errors))}</details>`
    : ''
}
${fieldErrors('rules', errors)}</fieldset>`;
}

const clip = (text: string, n = 60) => (text.length > n ? `${text.slice(0, n)}…` : text);

function listOf(value: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.map(String).join(', ') : undefined;
  } catch {
    return undefined;
  }
}

function measureOf(value: string): string | undefined {
  try {
    const parsed = JSON.parse(value) as { value?: unknown; unit?: unknown };
    return typeof parsed === 'object' && parsed !== null ? `${String(parsed.value)} ${String(parsed.unit)}` : undefined;
  } catch {
    return undefined;
  }
}

/** A stored rule in the words of its field (`Maximum characters: 40`), for the tables and read-only pages. */
export function ruleInWords(type: string, rule: NormalizedRule): Html {
  const field = ruleFieldsFor(type).find((f) => f.rule === rule.name);
  if (!field) return html`<code>${rule.name}</code>: <code>${clip(rule.value)}</code>`;
  switch (field.control) {
    case 'rows':
    case 'kinds':
      return html`${field.label}: ${clip(listOf(rule.value) ?? rule.value)}`;
    case 'measure':
      return html`${field.label}: ${measureOf(rule.value) ?? rule.value}`;
    case 'text':
    case 'schema':
      return html`${field.label}: <code>${clip(rule.value)}</code>`;
    default:
      return html`${field.label}: ${rule.value}`;
  }
}
