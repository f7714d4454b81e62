import { Controller, Req } from '@nestjs/common';
import { resourceFeedbackContract as routes } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyRequest } from 'fastify';
import { pathId } from '../http/ids';
import { ResourceFeedbackService } from './resource-feedback.service';

/** Admin API: product resource feedback (spec "Product resource feedback"; decisions §9). */
@Controller()
export class ResourceFeedbackController {
  constructor(private readonly feedback: ResourceFeedbackService) {}

  @TsRestHandler(routes.createResourceFeedback)
  create(@Req() request: FastifyRequest) {
    return tsRestHandler(routes.createResourceFeedback, async ({ params, body }) => {
      const { created, feedback } = await this.feedback.submit(request.auth!, pathId(params.product_id), body.resource_feedback);
      return created
        ? { status: 201 as const, body: { resource_feedback: feedback } }
        : { status: 200 as const, body: { resource_feedback: feedback } };
    });
  }
}
