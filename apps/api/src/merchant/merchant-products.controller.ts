import { Controller, Get, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { DomainError, IssuesError, withRule, type Issue } from '@platform/domain';
import type { FastifyReply } from 'fastify';
import { pathId } from '../http/ids';
import { MerchantCatalogService } from './merchant-catalog.service';
import { MerchantPageFilter } from './merchant-errors.filter';
import { queryId, queryText } from './merchant-query';
import { seeOther, sendPage } from './merchant-page';
import { Form, Merchant, MerchantSessionGuard, type FormFields, type MerchantContext } from './merchant-session.guard';
import { feedbackPage } from './pages/feedback.page';
import { issuesByField } from './pages/field-issues';
import { productPage } from './pages/product.page';
import { productsPage } from './pages/products.page';
import { ownText, valueSentence } from './pages/words';

/** Products (issue 18, 0 and 2): the list, a product with its metafields, and its apps' feedback (issue 9). */
@Controller()
@UseFilters(MerchantPageFilter)
@UseGuards(MerchantSessionGuard)
export class MerchantProductsController {
  constructor(private readonly catalog: MerchantCatalogService) {}

  /** `?title=` searches titles; `?feedback=require_actions` keeps the products needing action; 50 a page by id. */
  @Get('/admin/products')
  async list(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Query() query: Record<string, unknown>) {
    const feedback = query.feedback;
    if (feedback !== undefined && feedback !== 'require_actions')
      throw new DomainError('INVALID_PARAMETER', 'feedback: must be require_actions');
    const q = {
      title: queryText('title', query.title),
      requireActions: feedback === 'require_actions',
      after: queryId('after', query.after, 'a product id'),
      before: queryId('before', query.before, 'a product id'),
    };
    return sendPage(reply, 200, productsPage(ctx, q, await this.catalog.list(ctx, q)));
  }

  @Get('/admin/products/:id')
  async product(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('id') rawId: string, @Query('saved') saved: unknown) {
    const id = pathId(rawId);
    const product = await this.catalog.product(ctx, id);
    const fields = await this.catalog.fields(ctx, id);
    const count = typeof saved === 'string' && /^[0-9]{1,4}$/.test(saved) ? Number(saved) : undefined;
    return sendPage(reply, 200, productPage(ctx, { product, fields, errors: new Map(), ...(count !== undefined ? { saved: count } : {}) }));
  }

  /** Both validation levels on every changed value; nothing is written when any is refused (422 page, errors beside each field). */
  @Post('/admin/products/:id/metafields')
  async saveValues(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('id') rawId: string, @Form() form: FormFields) {
    const id = pathId(rawId);
    const product = await this.catalog.product(ctx, id);
    const fields = await this.catalog.fields(ctx, id);
    try {
      const written = await this.catalog.save(ctx, id, fields, form);
      seeOther(reply, `/admin/products/${id.toString()}?saved=${written}`);
    } catch (error) {
      if (!(error instanceof IssuesError)) throw error;
      // `d12.value[1]` is shown beside field d12 (the prefix is the form's), in a sentence of its type.
      const byId = new Map(fields.map((f) => [f.id, f]));
      const idOf = (issue: Issue) => issue.field.slice(0, Math.max(0, issue.field.indexOf('.')));
      const errors = issuesByField(
        error.issues,
        (issue) => (byId.has(idOf(issue)) ? idOf(issue) : ''),
        (issue) => {
          const rest = issue.field.slice(idOf(issue).length + 1);
          return valueSentence(withRule({ field: rest, message: `${rest}: ${ownText(issue)}` }, issue.rule), byId.get(idOf(issue))!.type);
        },
      );
      return sendPage(reply, 422, productPage(ctx, { product, fields, submitted: form, errors }));
    }
  }

  @Get('/admin/products/:id/resource_feedback')
  async feedback(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('id') rawId: string) {
    const id = pathId(rawId);
    const product = await this.catalog.product(ctx, id);
    return sendPage(reply, 200, feedbackPage(ctx, product, await this.catalog.feedbackOf(ctx, id)));
  }
}
