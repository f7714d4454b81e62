import { Controller, Get, Param, Query, Req, Res, UseFilters } from '@nestjs/common';
import { DomainError } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pathId, toId } from '../http/ids';
import { ProductsRepository } from '../products/products.repository';
import { ResourceFeedbackService } from '../resource-feedback/resource-feedback.service';
import { MerchantPageFilter } from './merchant-errors.filter';
import { html, layout, nav, sendPage, shownTime, signInNeededPage, when, type Html } from './merchant-page';
import { MerchantSessionsService } from './merchant-sessions.service';

/** Products per page of the merchant's products list. */
export const PRODUCTS_PER_PAGE = 50;

/** The feedback states in words (decisions §9: `require_actions` | `success`). */
const STATE_WORDS: Record<string, string> = { require_actions: 'Action required', success: 'All good' };

function titleOf(row: { title?: string }): string {
  return row.title ? row.title : '(untitled)';
}

/** An optional id of the query (`after`, `before`): a bad one is a 400 page, not a guess. */
function queryId(name: string, raw: unknown): bigint | undefined {
  if (raw === undefined) return undefined;
  const id = typeof raw === 'string' ? toId(raw) : undefined;
  if (id === undefined) throw new DomainError('INVALID_PARAMETER', `${name}: must be a product id`);
  return id;
}

/** The merchant's products (paged by id) and each product's resource feedback (issue 9; docs/resource-feedback.md). */
@Controller()
@UseFilters(MerchantPageFilter)
export class MerchantProductsController {
  constructor(
    private readonly sessions: MerchantSessionsService,
    private readonly products: ProductsRepository,
    private readonly feedback: ResourceFeedbackService,
  ) {}

  /** `?after=<id>` is the page after that product, `?before=<id>` the one before; 50 a page by id. */
  @Get('/admin/products')
  async list(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('after') after: unknown, @Query('before') before: unknown) {
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    if (!session) return sendPage(reply, 401, signInNeededPage(store, '/admin/products'));
    const afterId = queryId('after', after);
    const beforeId = queryId('before', before);
    if (afterId !== undefined && beforeId !== undefined) throw new DomainError('INVALID_PARAMETER', 'after, before: give one of them, not both');
    const backwards = beforeId !== undefined;
    const fetched = await this.products.titles({
      storeId: store.id,
      direction: backwards ? 'prev' : 'next',
      boundary: (backwards ? beforeId : (afterId ?? 0n)).toString(),
      sinceId: '0',
      take: PRODUCTS_PER_PAGE + 1,
    });
    const more = fetched.length > PRODUCTS_PER_PAGE;
    const rows = fetched.slice(0, PRODUCTS_PER_PAGE);
    if (backwards) rows.reverse();
    const first = rows[0]?.id.toString();
    const last = rows[rows.length - 1]?.id.toString();
    // Going forwards, a page after some id has one before it; going backwards, the page just came from after.
    const previous = first !== undefined && (backwards ? more : afterId !== undefined) ? `/admin/products?before=${first}` : undefined;
    const next = last !== undefined && (backwards ? true : more) ? `/admin/products?after=${last}` : undefined;
    const items = rows.map(
      (row) => html`<li><a href="/admin/products/${row.id.toString()}/resource_feedback">${titleOf(row)}</a> <span class="muted">#${row.id.toString()}</span></li>`,
    );
    return sendPage(
      reply,
      200,
      layout({
        title: 'Products',
        storeName: store.name,
        signOut: { formToken: session.formToken },
        body: html`${nav()}<section class="card"><h1>Products</h1>
<p class="muted">Open a product to see what the installed apps report about it.</p>
${rows.length === 0 ? html`<p>No products here.</p>` : html`<ul class="rows">${items}</ul>`}
${pager(previous, next)}</section>`,
      }),
    );
  }

  @Get('/admin/products/:id/resource_feedback')
  async feedbackPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('id') rawId: string) {
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    if (!session) return sendPage(reply, 401, signInNeededPage(store, request.url));
    const id = pathId(rawId);
    const product = await this.products.findOne(store.id, id);
    if (!product) throw new DomainError('NOT_FOUND', 'Product not found');
    const feedback = await this.feedback.listForProduct(store, id);
    const cards = feedback.map(
      (f) => html`<article class="item">
<h2>${f.app.name}</h2>
<p><span class="state ${f.state === 'success' ? 'ok' : 'warn'}">${STATE_WORDS[f.state] ?? f.state}</span></p>
${f.messages.length > 0 ? html`<ul class="messages">${f.messages.map((m) => html`<li>${m}</li>`)}</ul>` : ''}
<dl>
<dt>Feedback generated</dt><dd>${shownTime(f.feedback_generated_at, store.ianaTimezone)}</dd>
<dt>Product updated</dt><dd>${when(f.resource_updated_at)}</dd>
<dt>Received</dt><dd>${when(f.updated_at)}</dd>
</dl>
</article>`,
    );
    return sendPage(
      reply,
      200,
      layout({
        title: 'Resource feedback',
        storeName: store.name,
        signOut: { formToken: session.formToken },
        body: html`${nav()}<section class="card"><h1>${titleOf(product)}</h1>
<p class="muted">Product #${id.toString()} · what each installed app reports about it (times in ${store.ianaTimezone}).</p>
${cards.length === 0 ? html`<p>No app has sent feedback on this product.</p>` : cards}
</section>`,
      }),
    );
  }
}

function pager(previous: string | undefined, next: string | undefined): Html | string {
  if (!previous && !next) return '';
  return html`<div class="actions">${previous ? html`<a class="button" rel="prev" href="${previous}">Previous</a>` : ''}${
    next ? html`<a class="button" rel="next" href="${next}">Next</a>` : ''
  }</div>`;
}
