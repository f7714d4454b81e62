import type { MetafieldDefinition as DefinitionRow } from '@platform/db';
import { MERCHANT_MADE_ACCESS, METAFIELD_TYPES, OWNER_RESOURCES, RULE_NAMES, type NormalizedRule } from '@platform/domain';
import { SPARE_RULE_ROWS, type RuleRow } from '../definition-form';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, formToken, html, type Html } from '../merchant-page';
import { confirmPage } from './confirm.page';
import { fieldErrors, formErrors, notice, pager, selectField, table, textArea, textField, type FieldErrors } from './parts';

/** A definition as the merchant's table shows it: who made it, how it behaves, what the merchant may do. */
export interface DefinitionItem {
  row: DefinitionRow;
  /** "You (merchant admin)", or the creating app's name. */
  madeBy: string;
  /** The access as it behaves (decisions §8.7). */
  access: string;
  /** Why the merchant may not edit or delete it (the API's 403 text); undefined when it may. */
  noEdit: string | undefined;
  noDelete: string | undefined;
}

/** Access values of a merchant's own definition, by what they let other apps do. */
const ACCESS_WORDS: Record<string, string> = {
  NONE: 'Apps may read and write its values (NONE)',
  PUBLIC_READ: 'Apps may read its values (PUBLIC_READ)',
  MERCHANT_READ_WRITE: 'Apps may not see it (MERCHANT_READ_WRITE)',
};

const DONE_WORDS: Record<string, string> = {
  created: 'The definition was created.',
  updated:
    'The definition was saved. When its rules changed, the values are re-checked in the background: any that break the new rules show under Invalid values.',
  deleted: 'The definition was deleted.',
};

export function rulesOf(row: DefinitionRow): NormalizedRule[] {
  try {
    return JSON.parse(row.validations) as NormalizedRule[];
  } catch {
    return [];
  }
}

const shortRule = (r: { name: string; value: string }) => `${r.name} = ${r.value.length > 60 ? `${r.value.slice(0, 60)}…` : r.value}`;

function ownerTabs(current: string): Html {
  return html`<nav class="tabs" aria-label="Owner resource">${OWNER_RESOURCES.map(
    (o) => html`<a href="/admin/metafield_definitions?owner_resource=${o}"${o === current ? html` aria-current="page"` : ''}>${o}</a>`,
  )}</nav>`;
}

export function definitionsPage(
  ctx: MerchantContext,
  owner: string,
  items: DefinitionItem[],
  next: string | undefined,
  done: string | undefined,
): Html {
  const rows = items.map(({ row, madeBy, access, noEdit, noDelete }) => {
    const id = row.id.toString();
    const rules = rulesOf(row);
    const manage =
      noEdit === undefined || noDelete === undefined
        ? html`<span class="row-actions">${noEdit === undefined ? html`<a href="/admin/metafield_definitions/${id}">Edit<span class="visually-hidden"> ${row.name}</span></a>` : ''} ${
            noDelete === undefined
              ? html`<a href="/admin/metafield_definitions/${id}/delete">Delete<span class="visually-hidden"> ${row.name}</span></a>`
              : ''
          }</span>`
        : html`<a href="/admin/metafield_definitions/${id}">View<span class="visually-hidden"> ${row.name}</span></a><br><span class="muted">Read-only: ${noEdit}</span>`;
    return [
      row.name,
      html`<code>${row.namespace}.${row.key}</code>`,
      row.type,
      rules.length === 0
        ? html`<span class="muted">None</span>`
        : html`<ul class="plain">${rules.map((r) => html`<li><code>${shortRule(r)}</code></li>`)}</ul>`,
      madeBy,
      access,
      manage,
    ];
  });
  return adminPage(ctx, {
    title: 'Metafield definitions',
    section: 'definitions',
    body: html`${done && DONE_WORDS[done] ? notice(DONE_WORDS[done]) : ''}<section class="card"><h1>Metafield definitions</h1>
${ownerTabs(owner)}
<div class="actions"><a class="button primary" href="/admin/metafield_definitions/new?owner_resource=${owner}">Create definition</a><a class="button" href="/admin/metafields?valid=false">Invalid values</a></div>
${rows.length === 0 ? html`<p>No definitions of ${owner} that you can see.</p>` : table(`Metafield definitions of ${owner}`, ['Name', 'Namespace and key', 'Type', 'Rules', 'Made by', 'Access', 'Manage'], rows)}
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
  rules: RuleRow[];
}

function ruleRows(rules: RuleRow[], errors: FieldErrors): Html {
  const rows = [...rules, ...Array.from({ length: SPARE_RULE_ROWS }, () => ({ name: '', value: '' }))];
  return html`<fieldset class="field rules"${errors.has('rules') ? html` aria-describedby="rules-error"` : ''}><legend>Validation rules</legend>
<p class="hint">Each rule once; a value is text (JSON text for lists, measures and schemas). Leave a row empty to drop it.</p>
${rows.map(
  (r, i) => html`<div class="rule">
${selectField(`Rule ${i + 1}`, `rule.${i}.name`, r.name, [['', 'No rule'], ...RULE_NAMES.map((n) => [n, n] as const)], new Map())}
${textArea(`Rule ${i + 1} value`, `rule.${i}.value`, r.value, errors, r.value.length > 80 ? 6 : 2)}
</div>`,
)}
${fieldErrors('rules', errors)}</fieldset>`;
}

/** Create definition (issue 18, 1): the merchant's own, any namespace but an app's. */
export function newDefinitionPage(ctx: MerchantContext, draft: DefinitionDraft, errors: FieldErrors): Html {
  return adminPage(ctx, {
    title: 'Create definition',
    section: 'definitions',
    body: html`${formErrors(errors, 'The definition was not created')}<section class="card"><h1>Create definition</h1>
<form method="post" action="/admin/metafield_definitions" novalidate>${formToken(ctx)}
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
${selectField('Type', 'type', draft.type, [['', 'Choose a type'], ...METAFIELD_TYPES.map((t) => [t, t] as const)], errors)}
${textField('Description', 'description', draft.description, errors)}
${selectField(
  'Access for apps',
  'access',
  draft.access,
  MERCHANT_MADE_ACCESS.map((a) => [a, ACCESS_WORDS[a] ?? a] as const),
  errors,
)}
${ruleRows(draft.rules, errors)}
<div class="actions"><button type="submit" class="primary">Create definition</button><a class="button" href="/admin/metafield_definitions?owner_resource=${draft.owner_resource}">Cancel</a></div>
</form></section>`,
  });
}

/** A definition: the edit form where the merchant may change it, else its details and why not. */
export function definitionPage(ctx: MerchantContext, item: DefinitionItem, draft: DefinitionDraft, errors: FieldErrors): Html {
  const { row } = item;
  const id = row.id.toString();
  const facts = html`<dl>
<dt>Owner resource</dt><dd>${row.ownerResource}</dd>
<dt>Namespace and key</dt><dd><code>${row.namespace}.${row.key}</code></dd>
<dt>Type</dt><dd>${row.type}</dd>
<dt>Made by</dt><dd>${item.madeBy}</dd>
<dt>Access</dt><dd>${item.access}</dd>
</dl>`;
  if (item.noEdit !== undefined) {
    const rules = rulesOf(row);
    return adminPage(ctx, {
      title: row.name,
      section: 'definitions',
      body: html`<section class="card"><h1>${row.name}</h1>
<p class="notice-text">Read-only: ${item.noEdit}</p>
${facts}
<h2>Description</h2><p>${row.description ? row.description : html`<span class="muted">None</span>`}</p>
<h2>Validation rules</h2>${rules.length === 0 ? html`<p class="muted">None</p>` : html`<ul>${rules.map((r) => html`<li><code>${r.name}</code>: <code>${r.value}</code></li>`)}</ul>`}
<div class="actions"><a class="button" href="/admin/metafield_definitions?owner_resource=${row.ownerResource}">Back to the definitions</a></div>
</section>`,
    });
  }
  return adminPage(ctx, {
    title: `Edit ${row.name}`,
    section: 'definitions',
    body: html`${formErrors(errors, 'The definition was not saved')}<section class="card"><h1>Edit ${row.name}</h1>
${facts}
<form method="post" action="/admin/metafield_definitions/${id}" novalidate>${formToken(ctx)}
${textField('Name', 'name', draft.name, errors, { required: true })}
${textField('Description', 'description', draft.description, errors, { hint: 'Empty clears it.' })}
${
  row.appId === null
    ? selectField(
        'Access for apps',
        'access',
        draft.access,
        MERCHANT_MADE_ACCESS.map((a) => [a, ACCESS_WORDS[a] ?? a] as const),
        errors,
      )
    : ''
}
${ruleRows(draft.rules, errors)}
<div class="actions"><button type="submit" class="primary">Save definition</button>${
      item.noDelete === undefined ? html`<a class="button" href="/admin/metafield_definitions/${id}/delete">Delete definition</a>` : ''
    }<a class="button" href="/admin/metafield_definitions?owner_resource=${row.ownerResource}">Cancel</a></div>
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
