import type { MetafieldDefinition as DefinitionRow } from '@platform/db';
import { MERCHANT_MADE_ACCESS, OWNER_RESOURCES, type MetafieldType, type NormalizedRule } from '@platform/domain';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, formToken, html, type Html } from '../merchant-page';
import { confirmPage } from './confirm.page';
import { fieldErrors, formErrors, notice, pager, selectField, table, textField, type FieldErrors } from './parts';
import { ruleFieldset, ruleInWords } from './rule-fields.page';
import { accessWords, typeLabel, TYPE_WORDS } from './words';

/** A definition as the merchant's table shows it: who made it, how it behaves, what the merchant may do. */
export interface DefinitionItem {
  row: DefinitionRow;
  /** The app that made it; undefined when the merchant did. */
  maker: string | undefined;
  /** The access as it behaves (decisions §8.7: an unset access behaves as NONE, or MERCHANT_READ_WRITE in an app namespace). */
  access: string;
  /** Why the merchant may not edit or delete it (the API's 403 text); undefined when it may. */
  noEdit: string | undefined;
  noDelete: string | undefined;
}

const DONE_WORDS: Record<string, string> = {
  created: 'The definition was created.',
  updated:
    'The definition was saved. When its rules changed, the values are checked again in the background: any that break the new rules show under Invalid values.',
  deleted: 'The definition was deleted.',
};

export function rulesOf(row: DefinitionRow): NormalizedRule[] {
  try {
    return JSON.parse(row.validations) as NormalizedRule[];
  } catch {
    return [];
  }
}

const madeBy = (item: DefinitionItem) => item.maker ?? 'You';

/** Why a definition is read-only, in words (the API's refusal names its access value). */
const readOnlyWords = (item: DefinitionItem) => `${item.maker ?? 'Its app'} lets you view it, not change it.`;

function ownerTabs(current: string): Html {
  return html`<nav class="tabs" aria-label="Owner resource">${OWNER_RESOURCES.map(
    (o) => html`<a href="/admin/metafield_definitions?owner_resource=${o}"${o === current ? html` aria-current="page"` : ''}>${o}</a>`,
  )}</nav>`;
}

function rulesCell(row: DefinitionRow): Html {
  const rules = rulesOf(row);
  return rules.length === 0
    ? html`<span class="muted">None</span>`
    : html`<ul class="plain rules-list">${rules.map((r) => html`<li>${ruleInWords(row.type, r)}</li>`)}</ul>`;
}

export function definitionsPage(
  ctx: MerchantContext,
  owner: string,
  items: DefinitionItem[],
  next: string | undefined,
  done: string | undefined,
): Html {
  const rows = items.map((item) => {
    const { row, noEdit, noDelete } = item;
    const id = row.id.toString();
    const manage =
      noEdit === undefined || noDelete === undefined
        ? html`<span class="row-actions">${noEdit === undefined ? html`<a href="/admin/metafield_definitions/${id}">Edit<span class="visually-hidden"> ${row.name}</span></a>` : ''} ${
            noDelete === undefined
              ? html`<a href="/admin/metafield_definitions/${id}/delete">Delete<span class="visually-hidden"> ${row.name}</span></a>`
              : ''
          }</span>`
        : html`<a href="/admin/metafield_definitions/${id}">View<span class="visually-hidden"> ${row.name}</span></a><br><span class="muted">Read-only: ${readOnlyWords(item)}</span>`;
    return [
      html`${row.name}<br><code>${row.namespace}.${row.key}</code>`,
      typeLabel(row.type),
      rulesCell(row),
      madeBy(item),
      accessWords(item.access, item.maker).label,
      manage,
    ];
  });
  return adminPage(ctx, {
    title: 'Metafield definitions',
    section: 'definitions',
    body: html`${done && DONE_WORDS[done] ? notice(DONE_WORDS[done]) : ''}<section class="card"><h1>Metafield definitions</h1>
${ownerTabs(owner)}
<div class="actions"><a class="button primary" href="/admin/metafield_definitions/new?owner_resource=${owner}">Create definition</a></div>
${rows.length === 0 ? html`<p>No definitions of ${owner} that you can see.</p>` : table(`Metafield definitions of ${owner}`, ['Name', 'Type', 'Rules', 'Made by', 'Access for apps', 'Manage'], rows)}
${pager(undefined, next)}</section>`,
  });
}

export interface DefinitionDraft {
  owner_resource: string;
  namespace: string;
  key: string;
  name: string;
  description: string;
  type: string;
  access: string;
  /** The rule fields' values (`rule.min`, `rule.choices.0`, ...: rule-fields.ts). */
  rules: Readonly<Record<string, string>>;
}

/** The access of the merchant's own definition: each value in words with what it means, the API's name small beside it. */
function accessField(value: string, errors: FieldErrors): Html {
  return html`<fieldset class="field"${errors.has('access') ? html` aria-describedby="access-error"` : ''}><legend>Access for apps</legend>
${MERCHANT_MADE_ACCESS.map((a) => {
  const words = accessWords(a, undefined);
  return html`<label class="check choice"><input type="radio" name="access" value="${a}"${a === value ? html` checked` : ''}><span>${words.label} <code class="api-name">${a}</code><span class="hint">${words.help}</span></span></label>`;
})}
${fieldErrors('access', errors)}</fieldset>`;
}

/** The types by group, each in words (step 1 of Create definition). */
const TYPE_GROUPS: readonly (readonly [string, readonly MetafieldType[]])[] = [
  ['Text', ['single_line_text_field', 'multi_line_text_field', 'list.single_line_text_field']],
  ['Numbers', ['number_integer', 'number_decimal', 'list.number_integer', 'list.number_decimal']],
  ['Dates and times', ['date', 'date_time', 'list.date', 'list.date_time']],
  ['Measurements', ['weight', 'volume', 'dimension', 'list.weight', 'list.volume', 'list.dimension']],
  ['Links and files', ['url', 'link', 'file_reference', 'list.url', 'list.link', 'list.file_reference']],
  ['Other', ['boolean', 'rating', 'json', 'metaobject_reference', 'list.rating', 'list.metaobject_reference']],
];

/**
 * Create definition, step 1: its type (the rules the next step offers are that type's). A plain GET
 * form: the choice is in the next page's address, so Back and a reload keep it.
 */
export function chooseTypePage(ctx: MerchantContext, owner: string, problem: string | undefined): Html {
  const errors: FieldErrors = problem ? new Map([['type', [problem]]]) : new Map();
  return adminPage(ctx, {
    title: 'Create definition',
    section: 'definitions',
    body: html`<section class="card"><h1>Create definition</h1>
<p>A metafield definition adds a field of your own to ${owner}, with rules its values must follow. First, what it holds:</p>
<form method="get" action="/admin/metafield_definitions/new">
<input type="hidden" name="owner_resource" value="${owner}">
<div class="field"><label for="type">Type</label>
<select id="type" name="type"${problem ? html` aria-invalid="true" aria-describedby="type-error"` : ''}>${TYPE_GROUPS.map(
      ([group, types]) =>
        html`<optgroup label="${group}">${types.map((t) => html`<option value="${t}">${TYPE_WORDS[t]}</option>`)}</optgroup>`,
    )}</select>
${fieldErrors('type', errors)}</div>
<div class="actions"><button type="submit" class="primary">Continue</button><a class="button" href="/admin/metafield_definitions?owner_resource=${owner}">Cancel</a></div>
</form></section>`,
  });
}

/** Create definition, step 2 (issue 18, 1): the merchant's own, any namespace but an app's, with its type's rules. */
export function newDefinitionPage(ctx: MerchantContext, draft: DefinitionDraft, errors: FieldErrors): Html {
  const change = `/admin/metafield_definitions/new?owner_resource=${draft.owner_resource}`;
  return adminPage(ctx, {
    title: 'Create definition',
    section: 'definitions',
    body: html`${formErrors(errors, 'The definition was not created')}<section class="card"><h1>Create definition</h1>
<form method="post" action="/admin/metafield_definitions" novalidate>${formToken(ctx)}
<input type="hidden" name="type" value="${draft.type}">
<dl><dt>Type</dt><dd>${typeLabel(draft.type)}<br><a href="${change}"${errors.has('type') ? html` aria-describedby="type-error"` : ''}>Change type</a></dd></dl>
${fieldErrors('type', errors)}
${selectField(
  'Owner resource',
  'owner_resource',
  draft.owner_resource,
  OWNER_RESOURCES.map((o) => [o, o] as const),
  errors,
)}
${textField('Name', 'name', draft.name, errors, { required: true, hint: 'Shown to you in the merchant admin (at most 255 characters).' })}
${textField('Namespace', 'namespace', draft.namespace, errors, { required: true, hint: "3 to 255 letters, digits, - or _ (not an app's $app: namespace)." })}
${textField('Key', 'key', draft.key, errors, { required: true, hint: '3 to 64 letters, digits, - or _.' })}
${textField('Description', 'description', draft.description, errors, { hint: 'Optional, at most 255 characters.' })}
${accessField(draft.access, errors)}
${ruleFieldset(draft.type, draft.rules, errors)}
<div class="actions"><button type="submit" class="primary">Create definition</button><a class="button" href="/admin/metafield_definitions?owner_resource=${draft.owner_resource}">Cancel</a></div>
</form></section>`,
  });
}

function facts(item: DefinitionItem): Html {
  const { row } = item;
  const access = accessWords(item.access, item.maker);
  return html`<dl>
<dt>Owner resource</dt><dd>${row.ownerResource}</dd>
<dt>Namespace and key</dt><dd><code>${row.namespace}.${row.key}</code></dd>
<dt>Type</dt><dd>${typeLabel(row.type)}</dd>
<dt>Made by</dt><dd>${madeBy(item)}</dd>
<dt>Access for apps</dt><dd>${access.label} <code class="api-name">${item.access}</code><br><span class="muted">${access.help}</span></dd>
</dl>`;
}

/** A definition: the edit form where the merchant may change it, else its details and why not. */
export function definitionPage(ctx: MerchantContext, item: DefinitionItem, draft: DefinitionDraft, errors: FieldErrors): Html {
  const { row } = item;
  const id = row.id.toString();
  const back = `/admin/metafield_definitions?owner_resource=${row.ownerResource}`;
  if (item.noEdit !== undefined) {
    const rules = rulesOf(row);
    return adminPage(ctx, {
      title: row.name,
      section: 'definitions',
      body: html`<section class="card"><h1>${row.name}</h1>
<p class="notice-text">Read-only: ${readOnlyWords(item)}</p>
${facts(item)}
<h2>Description</h2><p>${row.description ? row.description : html`<span class="muted">None</span>`}</p>
<h2>Validation rules</h2>${rules.length === 0 ? html`<p class="muted">None</p>` : html`<ul>${rules.map((r) => html`<li>${ruleInWords(row.type, r)}</li>`)}</ul>`}
<div class="actions"><a class="button" href="${back}">Back to the definitions</a></div>
</section>`,
    });
  }
  return adminPage(ctx, {
    title: `Edit ${row.name}`,
    section: 'definitions',
    body: html`${formErrors(errors, 'The definition was not saved')}<section class="card"><h1>Edit ${row.name}</h1>
${facts(item)}
<form method="post" action="/admin/metafield_definitions/${id}" novalidate>${formToken(ctx)}
${textField('Name', 'name', draft.name, errors, { required: true })}
${textField('Description', 'description', draft.description, errors, { hint: 'Empty clears it.' })}
${row.appId === null ? accessField(draft.access, errors) : ''}
${ruleFieldset(row.type, draft.rules, errors)}
<div class="actions"><button type="submit" class="primary">Save definition</button>${
      item.noDelete === undefined ? html`<a class="button" href="/admin/metafield_definitions/${id}/delete">Delete definition</a>` : ''
    }<a class="button" href="${back}">Cancel</a></div>
</form></section>`,
  });
}

/** Delete a definition: what happens to its values, and the option to delete them too (decisions §8.4). */
export function confirmDeleteDefinitionPage(ctx: MerchantContext, row: DefinitionRow): Html {
  return confirmPage(ctx, {
    title: `Delete ${row.name}?`,
    section: 'definitions',
    paragraphs: [
      html`The definition <code>${row.namespace}.${row.key}</code> of ${row.ownerResource} goes. Its values stay, without rules, unless you delete them too.`,
    ],
    fields: html`<div class="field"><label class="check"><input type="checkbox" name="delete_values" value="on"> Also delete every value of this definition</label></div>`,
    action: `/admin/metafield_definitions/${row.id.toString()}/delete`,
    button: 'Delete definition',
    back: `/admin/metafield_definitions?owner_resource=${row.ownerResource}`,
  });
}
