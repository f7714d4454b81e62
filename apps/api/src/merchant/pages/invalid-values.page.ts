import type { InvalidValueItem } from '../merchant-definitions.service';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, html, type Html } from '../merchant-page';
import { pager, table } from './parts';
import { invalidSentences, typeLabel } from './words';

const shortValue = (v: string) => (v.length > 80 ? `${v.slice(0, 80)}…` : v);

/** Invalid values (issue 18, 3): every value the last re-checks marked invalid, with the rule it breaks and a link to fix it. */
export function invalidValuesPage(ctx: MerchantContext, items: InvalidValueItem[], next: string | undefined): Html {
  const rows = items.map((item) => {
    const product = item.row.ownerId.toString();
    return [
      html`<a href="/admin/products/${product}">${item.productTitle}</a>`,
      html`<code>${item.row.namespace}.${item.row.key}</code><br><span class="muted">${typeLabel(item.row.type)}</span>`,
      html`<code>${shortValue(item.row.value)}</code>`,
      html`<ul class="plain">${invalidSentences(item, item.row.type).map((r) => html`<li>${r}</li>`)}</ul>`,
      html`<a href="/admin/products/${product}">Fix<span class="visually-hidden"> ${item.row.namespace}.${item.row.key} of ${item.productTitle}</span></a>`,
    ];
  });
  return adminPage(ctx, {
    title: 'Invalid values',
    section: 'invalid',
    body: html`<section class="card"><h1>Invalid values</h1>
<p class="muted">Values that break the rules of their definition since its rules changed (values are checked again in the background after each change).</p>
${rows.length === 0 ? html`<p>No value is marked invalid.</p>` : table('Invalid metafield values', ['Product', 'Metafield', 'Value', 'Why', 'Fix'], rows)}
${pager(undefined, next)}</section>`,
  });
}
