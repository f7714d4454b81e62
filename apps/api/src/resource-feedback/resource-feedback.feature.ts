import type { Provider, Type } from '@nestjs/common';
import { ResourceFeedbackOperatorController } from './resource-feedback-operator.controller';
import { ResourceFeedbackController } from './resource-feedback.controller';
import { ResourceFeedbackRepository } from './resource-feedback.repository';
import { ResourceFeedbackService } from './resource-feedback.service';

/** Product resource feedback (decisions §9) and its operator view (§10): registered by AppModule. */
export const resourceFeedbackFeature: { controllers: Type[]; providers: Provider[] } = {
  controllers: [ResourceFeedbackController, ResourceFeedbackOperatorController],
  providers: [ResourceFeedbackRepository, ResourceFeedbackService],
};
