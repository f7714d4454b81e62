import type { ProductList, ProductListQuery } from '../merchant-catalog.service';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, html, type Html } from '../merchant-page';
import { pager, pill, table } from './parts';

/** The feedback states in words (decisions §9: `require_actions` | `success`). */
export const STATE_WORDS: Record<string, string> = { require_actions: 'Action required', success: 'All good' };

export const titleOf = (row: { title?: string }): string => (row.title ? row.title : '(untitled)');

/** The list's own query string, with one boundary (`after`/`before`) set. */
function listUrl(q: ProductListQuery, boundary: { after?: bigint; before?: bigint }): string {
  const params = new URLSearchParams();
  if (q.title !== undefined) params.set('title', q.title);
  if (q.requireActions) params.set('feedback', 'require_actions');
  if (boundary.after !== undefined) params.set('after', boundary.after.toString());
  if (boundary.before !== undefined) params.set('before', boundary.before.toString());
  return `/admin/products?${params.toString()}`;
}

export function productsPage(ctx: MerchantContext, q: ProductListQuery, list: ProductList): Html {
  const rows = list.rows.map((row) => {
    const id = row.id.toString();
    const feedback = row.feedback
      ? html`<a href="/admin/products/${id}/resource_feedback">${pill(STATE_WORDS[row.feedback] ?? row.feedback, row.feedback === 'success' ? 'ok' : 'warn')}<span class="visually-hidden"> (feedback on ${titleOf(row)})</span></a>`
      : html`<span class="muted">None</span>`;
    const values = row.invalidValue
      ? html`<a href="/admin/products/${id}">${pill('Invalid value', 'bad')}<span class="visually-hidden"> on ${titleOf(row)}</span></a>`
      : html`<span class="muted">All valid</span>`;
    return [html`<a href="/admin/products/${id}">${titleOf(row)}</a> <span class="muted">#${id}</span>`, feedback, values];
  });
  return adminPage(ctx, {
    title: 'Products',
    section: 'products',
    body: html`<section class="card"><h1>Products</h1>
<form method="get" action="/admin/products" class="search" role="search">
<label for="title">Search by title</label>
<div class="search-row"><input id="title" name="title" type="search" value="${q.title ?? ''}">${
      q.requireActions ? html`<input type="hidden" name="feedback" value="require_actions">` : ''
    }<button type="submit">Search</button></div>
</form>
${q.requireActions ? html`<p>Showing the products an app says need action. <a href="/admin/products">Show all products</a></p>` : ''}
${rows.length === 0 ? html`<p>No products here.</p>` : table('Products', ['Product', 'Feedback', 'Metafields'], rows)}
${pager(list.previous !== undefined ? listUrl(q, { before: list.previous }) : undefined, list.next !== undefined ? listUrl(q, { after: list.next }) : undefined)}</section>`,
  });
}
