import { Controller, Req, Res } from '@nestjs/common';
import { adminContract } from '@platform/contract';
import { DomainError } from '@platform/domain';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MISSING } from '../http/errors.filter';
import { rawJson, requestPageUrl } from '../http/raw-json';
import { MetafieldDefinitionsService } from './metafield-definitions.service';

/**
 * Create and update bodies go to the domain's rule engine unvalidated by zod: it reports every
 * problem at once with field-first messages (spec "Validation rule object", decisions §4), where
 * zod would stop at wrong JSON types and answer without the rule problems.
 */
const DOMAIN_VALIDATES_BODY = { validateRequestBody: false } as const;

/** The body the domain reads; none at all is refused as on every route (`body: required`, issue 43). */
function sentBody(body: unknown): unknown {
  if (body === undefined) throw new DomainError('VALIDATION_FAILED', `body: ${MISSING}`);
  return body;
}

/** Admin API: metafield definitions (spec "Metafield definition operations", decisions §8.1-§8.7). */
@Controller()
export class MetafieldDefinitionsController {
  constructor(private readonly definitions: MetafieldDefinitionsService) {}

  @TsRestHandler(adminContract.createMetafieldDefinition, DOMAIN_VALIDATES_BODY)
  create(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.createMetafieldDefinition, async ({ body }) => ({
      status: 201 as const,
      body: { definition: await this.definitions.create(request.auth!, sentBody(body)) },
    }));
  }

  @TsRestHandler(adminContract.getMetafieldDefinition)
  get(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.getMetafieldDefinition, async ({ query }) => ({
      status: 200 as const,
      body: { definition: await this.definitions.get(request.auth!, query.id) },
    }));
  }

  @TsRestHandler(adminContract.updateMetafieldDefinition, DOMAIN_VALIDATES_BODY)
  update(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.updateMetafieldDefinition, async ({ body }) => ({
      status: 200 as const,
      body: { definition: await this.definitions.update(request.auth!, sentBody(body)) },
    }));
  }

  @TsRestHandler(adminContract.deleteMetafieldDefinition)
  remove(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.deleteMetafieldDefinition, async ({ query }) => {
      await this.definitions.remove(request.auth!, query);
      return { status: 200 as const, body: {} };
    });
  }

  @TsRestHandler(adminContract.listMetafieldDefinitions)
  list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return tsRestHandler(adminContract.listMetafieldDefinitions, async ({ query }) => {
      const page = await this.definitions.list(request.auth!, query, requestPageUrl(request));
      if (page.link) void reply.header('link', page.link);
      return { status: 200 as const, body: rawJson(page.json) };
    });
  }
}
