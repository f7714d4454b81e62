import { Controller, Get, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { DomainError, isSupportedType, IssuesError } from '@platform/domain';
import type { FastifyReply } from 'fastify';
import { pathId } from '../http/ids';
import { APP_EDIT_FIELDS, createInput, CREATE_FIELDS, definitionFieldOf, OWN_EDIT_FIELDS, updatePatch } from './definition-form';
import { MerchantDefinitionsService } from './merchant-definitions.service';
import { MerchantPageFilter } from './merchant-errors.filter';
import { queryId } from './merchant-query';
import { seeOther, sendPage } from './merchant-page';
import { Form, Merchant, MerchantSessionGuard, type FormFields, type MerchantContext } from './merchant-session.guard';
import {
  chooseTypePage,
  confirmDeleteDefinitionPage,
  definitionPage,
  definitionsPage,
  newDefinitionPage,
  rulesOf,
  type DefinitionDraft,
  type DefinitionItem,
} from './pages/definitions.page';
import { issuesByField } from './pages/field-issues';
import { invalidValuesPage } from './pages/invalid-values.page';
import { definitionSentence } from './pages/words';
import { encodeRules, ruleFormOf } from './rule-fields';

/** The `after` id of a page by id (0: the first page). */
const afterOf = (raw: unknown): bigint => queryId('after', raw) ?? 0n;

function draftOf(item: DefinitionItem): DefinitionDraft {
  const { row } = item;
  return {
    owner_resource: row.ownerResource,
    namespace: row.namespace,
    key: row.key,
    name: row.name,
    description: row.description ?? '',
    type: row.type,
    access: row.accessAdmin ?? 'NONE',
    rules: ruleFormOf(row.type, rulesOf(row)),
  };
}

/** What was posted, shown again after a refusal: the fields as typed, the rule fields among them. */
function postedDraft(form: FormFields, base: DefinitionDraft): DefinitionDraft {
  const text = (name: Exclude<keyof DefinitionDraft, 'rules'>) => form[name] ?? base[name];
  return {
    owner_resource: text('owner_resource'),
    namespace: text('namespace'),
    key: text('key'),
    name: text('name'),
    description: text('description'),
    type: text('type'),
    access: text('access'),
    rules: form,
  };
}

/** Metafield definitions (issue 18, 1) and invalid values (issue 18, 3). */
@Controller()
@UseFilters(MerchantPageFilter)
@UseGuards(MerchantSessionGuard)
export class MerchantDefinitionsController {
  constructor(private readonly definitions: MerchantDefinitionsService) {}

  @Get('/admin/metafield_definitions')
  async list(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Query() query: Record<string, unknown>) {
    const owner = this.definitions.ownerOf(query.owner_resource);
    const { items, next } = await this.definitions.page(ctx, owner, afterOf(query.after));
    const nextUrl = next !== undefined ? `/admin/metafield_definitions?owner_resource=${owner}&after=${next.toString()}` : undefined;
    return sendPage(reply, 200, definitionsPage(ctx, owner, items, nextUrl, typeof query.done === 'string' ? query.done : undefined));
  }

  /** Step 1 chooses the type (`?type=` absent or unknown), step 2 is the form with that type's rules (issue 47). */
  @Get('/admin/metafield_definitions/new')
  create(
    @Merchant() ctx: MerchantContext,
    @Res() reply: FastifyReply,
    @Query('owner_resource') owner: unknown,
    @Query('type') type: unknown,
  ) {
    const ownerResource = this.definitions.ownerOf(owner);
    if (!isSupportedType(type)) {
      const problem = type === undefined || type === '' ? undefined : 'Choose one of the types in the list.';
      return sendPage(reply, problem ? 400 : 200, chooseTypePage(ctx, ownerResource, problem));
    }
    const draft = { owner_resource: ownerResource, namespace: '', key: '', name: '', description: '', type, access: 'NONE', rules: {} };
    return sendPage(reply, 200, newDefinitionPage(ctx, draft, new Map()));
  }

  /** Every rule of decisions §8 through the API's own service; refusals beside their fields (422), in sentences. */
  @Post('/admin/metafield_definitions')
  async createPost(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Form() form: FormFields) {
    const type = form.type ?? '';
    const { rules, order } = encodeRules(type, form);
    try {
      const row = await this.definitions.create(ctx, createInput(form, rules));
      seeOther(reply, `/admin/metafield_definitions?owner_resource=${row.ownerResource}&done=created`);
    } catch (error) {
      if (!(error instanceof IssuesError)) throw error;
      const empty = { owner_resource: 'products', namespace: '', key: '', name: '', description: '', type: '', access: 'NONE', rules: {} };
      const errors = issuesByField(
        error.issues,
        (issue) => definitionFieldOf(issue, order, type, CREATE_FIELDS),
        (issue) => definitionSentence(issue, type),
      );
      return sendPage(reply, 422, newDefinitionPage(ctx, postedDraft(form, empty), errors));
    }
  }

  @Get('/admin/metafield_definitions/:id')
  async show(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('id') rawId: string) {
    const item = await this.definitions.get(ctx, pathId(rawId));
    return sendPage(reply, 200, definitionPage(ctx, item, draftOf(item), new Map()));
  }

  /** The same update as the API's (decisions §8.5): a rules change starts the background re-check (§8.12). */
  @Post('/admin/metafield_definitions/:id')
  async update(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('id') rawId: string, @Form() form: FormFields) {
    const id = pathId(rawId);
    const item = await this.definitions.get(ctx, id);
    const type = item.row.type;
    const { rules, order } = encodeRules(type, form);
    try {
      const row = await this.definitions.update(ctx, id, updatePatch(form, item.row, rules));
      seeOther(reply, `/admin/metafield_definitions?owner_resource=${row.ownerResource}&done=updated`);
    } catch (error) {
      if (!(error instanceof IssuesError)) throw error;
      const shown = item.row.appId === null ? OWN_EDIT_FIELDS : APP_EDIT_FIELDS;
      const errors = issuesByField(
        error.issues,
        (issue) => definitionFieldOf(issue, order, type, shown),
        (issue) => definitionSentence(issue, type),
      );
      return sendPage(reply, 422, definitionPage(ctx, item, postedDraft(form, draftOf(item)), errors));
    }
  }

  @Get('/admin/metafield_definitions/:id/delete')
  async confirmDelete(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('id') rawId: string) {
    const { row, noDelete } = await this.definitions.get(ctx, pathId(rawId));
    // The same 403 the API gives: the page says why instead of offering a button that could only fail.
    if (noDelete !== undefined) throw new DomainError('ACCESS_DENIED', noDelete);
    return sendPage(reply, 200, confirmDeleteDefinitionPage(ctx, row));
  }

  @Post('/admin/metafield_definitions/:id/delete')
  async remove(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('id') rawId: string, @Form() form: FormFields) {
    const id = pathId(rawId);
    const { row } = await this.definitions.get(ctx, id);
    await this.definitions.remove(ctx, id, form.delete_values === 'on');
    seeOther(reply, `/admin/metafield_definitions?owner_resource=${row.ownerResource}&done=deleted`);
  }

  /** `?valid=false` (the only listing: values marked invalid by the re-checks), 100 a page by id. */
  @Get('/admin/metafields')
  async invalid(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Query() query: Record<string, unknown>) {
    if (query.valid !== undefined && query.valid !== 'false') {
      throw new DomainError('INVALID_PARAMETER', 'valid: must be false (this page lists the values marked invalid)');
    }
    const { items, next } = await this.definitions.invalid(ctx, afterOf(query.after));
    return sendPage(
      reply,
      200,
      invalidValuesPage(ctx, items, next !== undefined ? `/admin/metafields?valid=false&after=${next.toString()}` : undefined),
    );
  }
}
