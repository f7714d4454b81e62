import type { RenderedFeedbackWithApp } from '../../resource-feedback/resource-feedback.service';
import type { ProductRecord } from '../merchant.read-model';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, html, shownTime, when, type Html } from '../merchant-page';
import { STATE_WORDS, titleOf } from './products.page';

/** Every installed app's feedback on one product (issue 9; docs/resource-feedback.md). */
export function feedbackPage(ctx: MerchantContext, product: ProductRecord, feedback: RenderedFeedbackWithApp[]): Html {
  const zone = ctx.store.ianaTimezone;
  const cards = feedback.map(
    (f) => html`<article class="item">
<h2>${f.app.name}</h2>
<p><span class="state ${f.state === 'success' ? 'ok' : ''}">${STATE_WORDS[f.state] ?? f.state}</span></p>
${f.messages.length > 0 ? html`<ul class="messages">${f.messages.map((m) => html`<li>${m}</li>`)}</ul>` : ''}
<dl>
<dt>Feedback generated</dt><dd>${shownTime(f.feedback_generated_at, zone)}</dd>
<dt>Product updated</dt><dd>${when(f.resource_updated_at)}</dd>
<dt>Received</dt><dd>${when(f.updated_at)}</dd>
</dl>
</article>`,
  );
  const id = product.id.toString();
  return adminPage(ctx, {
    title: 'Resource feedback',
    section: 'products',
    body: html`<section class="card"><h1>${titleOf(product)}</h1>
<p class="muted">Product #${id} · what each installed app reports about it (times in ${zone}). <a href="/admin/products/${id}">Product and metafields</a></p>
${cards.length === 0 ? html`<p>No app has sent feedback on this product.</p>` : cards}
</section>`,
  });
}
