import { Controller } from '@nestjs/common';
import { operatorResourceFeedbackContract as routes } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import { pathId } from '../http/ids';
import { ResourceFeedbackService } from './resource-feedback.service';

/** Operator API: every app's feedback on one product, the merchant admin's view (decisions §10). */
@Controller()
export class ResourceFeedbackOperatorController {
  constructor(private readonly feedback: ResourceFeedbackService) {}

  @TsRestHandler(routes.listProductResourceFeedback)
  list() {
    return tsRestHandler(routes.listProductResourceFeedback, async ({ params }) => ({
      status: 200 as const,
      body: { resource_feedback: await this.feedback.listForStoreProduct(params.handle, pathId(params.id)) },
    }));
  }
}
