import { formatInZone } from '@platform/domain';
import type { ValueField } from '../merchant-catalog.service';
import type { ProductRecord } from '../merchant.read-model';
import type { FormFields, MerchantContext } from '../merchant-session.guard';
import { adminPage, formToken, html, when, type Html } from '../merchant-page';
import { controlOf, listElements, postedRows, SPARE_LIST_ROWS } from '../value-form';
import { errorAttributes, fieldErrors, formErrors, notice, type FieldErrors } from './parts';
import { titleOf } from './products.page';
import { invalidSentences, typeLabel } from './words';

export interface ProductView {
  product: ProductRecord;
  fields: ValueField[];
  /** What was posted, shown again after a refusal. */
  submitted?: FormFields;
  errors: FieldErrors;
  /** How many values the last save wrote (`?saved=`). */
  saved?: number;
}

function docOf(product: ProductRecord): Record<string, unknown> {
  try {
    const doc: unknown = JSON.parse(product.doc);
    return typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '—');

function productFields(ctx: MerchantContext, product: ProductRecord): Html {
  const doc = docOf(product);
  const zone = ctx.store.ianaTimezone;
  const variants = Array.isArray(doc.variants) ? doc.variants.length : 0;
  return html`<dl>
<dt>Handle</dt><dd><code>${product.handle}</code></dd>
<dt>Status</dt><dd>${product.status}</dd>
<dt>Vendor</dt><dd>${text(doc.vendor)}</dd>
<dt>Product type</dt><dd>${text(doc.product_type)}</dd>
<dt>Variants</dt><dd>${variants}</dd>
<dt>Published</dt><dd>${product.publishedAt ? when(formatInZone(product.publishedAt, zone)) : 'Not published'}</dd>
<dt>Updated</dt><dd>${when(formatInZone(product.updatedAt, zone))}</dd>
</dl>`;
}

function control(field: ValueField, view: ProductView): Html {
  const { id, type } = field;
  const posted = view.submitted?.[id];
  const value = posted ?? field.stored ?? '';
  const attrs = errorAttributes(id, view.errors);
  switch (controlOf(type)) {
    case 'textarea':
      return html`<textarea id="${id}" name="${id}" rows="3"${attrs}>${value}</textarea>`;
    case 'json':
      return html`<textarea id="${id}" name="${id}" rows="4" class="mono" spellcheck="false"${attrs}>${value}</textarea>`;
    case 'number':
      // Text with a number keypad, not type=number: the browser would drop what it cannot parse,
      // and the API's own message (basic check, then rules) is what the merchant should read.
      return html`<input id="${id}" name="${id}" type="text" inputmode="${type === 'number_integer' ? 'numeric' : 'decimal'}" value="${value}"${attrs}>`;
    case 'date':
      return html`<input id="${id}" name="${id}" type="date" value="${value}"${attrs}>`;
    case 'boolean':
      return html`<select id="${id}" name="${id}"${attrs}>${[
        ['', field.stored === undefined ? 'Not set' : 'Choose'],
        ['true', 'true'],
        ['false', 'false'],
      ].map(([v, words]) => html`<option value="${v}"${v === value ? html` selected` : ''}>${words}</option>`)}</select>`;
    case 'list': {
      const rows =
        (view.submitted ? postedRows(view.submitted, id) : undefined) ?? (field.stored !== undefined ? listElements(field.stored) : []);
      const all = [...rows, ...Array.from({ length: SPARE_LIST_ROWS }, () => '')];
      return html`<ol class="list-editor">${all.map(
        (row, i) =>
          html`<li><label for="${id}.${i}" class="visually-hidden">${field.label}, item ${i + 1}</label><input id="${id}.${i}" name="${id}.${i}" type="text" value="${row}"${attrs}></li>`,
      )}</ol><p class="hint">One item a row; empty rows are left out.</p>`;
    }
    default:
      return html`<input id="${id}" name="${id}" type="text" value="${value}"${attrs}>`;
  }
}

function valueField(field: ValueField, view: ProductView): Html {
  const meta = html`<span class="muted">${typeLabel(field.type)} · <code>${field.namespace}.${field.key}</code></span>`;
  const reasons = invalidSentences(field, field.type);
  const invalid =
    reasons.length > 0
      ? html`<div class="invalid" role="note"><strong>Marked invalid</strong> when its rules changed:<ul>${reasons.map((r) => html`<li>${r}</li>`)}</ul></div>`
      : '';
  if (field.readOnly !== undefined) {
    return html`<div class="field metafield"><span class="label">${field.label}</span> ${meta}${invalid}
<p class="readonly">${field.stored === undefined ? html`<span class="muted">Not set</span>` : html`<code>${field.stored}</code>`}</p>
<p class="hint">Read-only: the app that made this field lets you view its value, not change it.</p></div>`;
  }
  const isList = controlOf(field.type) === 'list';
  const label = isList
    ? html`<span class="label" id="${field.id}-label">${field.label}</span>`
    : html`<label for="${field.id}">${field.label}</label>`;
  return html`<div class="field metafield"${isList ? html` role="group" aria-labelledby="${field.id}-label"` : ''}>${label} ${meta}
${field.description ? html`<p class="hint">${field.description}</p>` : ''}${invalid}
${control(field, view)}
${fieldErrors(field.id, view.errors)}</div>`;
}

/** A product's fields and its metafield values, editable where the access lets the merchant write (issue 18, 2). */
export function productPage(ctx: MerchantContext, view: ProductView): Html {
  const { product, fields } = view;
  const id = product.id.toString();
  const editable = fields.some((f) => f.readOnly === undefined);
  return adminPage(ctx, {
    title: titleOf(product),
    section: 'products',
    body: html`${view.saved !== undefined ? notice(view.saved === 0 ? 'Nothing changed: no value was written.' : `Saved: ${view.saved === 1 ? '1 value' : `${view.saved} values`} written.`) : ''}${formErrors(
      view.errors,
      'Nothing was saved',
    )}<section class="card"><h1>${titleOf(product)}</h1>
<p class="muted">Product #${id} · <a href="/admin/products/${id}/resource_feedback">Feedback from apps</a></p>
${productFields(ctx, product)}</section>
<section class="card"><h2>Metafields</h2>
${
  fields.length === 0
    ? html`<p class="muted">No metafield definitions for products yet, and no values. <a href="/admin/metafield_definitions/new?owner_resource=products">Create a definition</a></p>`
    : html`<form method="post" action="/admin/products/${id}/metafields" novalidate>${formToken(ctx)}
${fields.map((f) => valueField(f, view))}
${editable ? html`<div class="actions"><button type="submit" class="primary">Save values</button></div>` : ''}
</form>`
}</section>`,
  });
}
