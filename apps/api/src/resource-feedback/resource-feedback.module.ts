import { Module } from '@nestjs/common';
import { ProductsModule } from '../products/products.module';
import { ProductFeedbackReadModel } from './product-feedback.read-model';
import { ResourceFeedbackController } from './resource-feedback.controller';
import { ResourceFeedbackOperatorController } from './resource-feedback-operator.controller';
import { ResourceFeedbackRepository } from './resource-feedback.repository';
import { ResourceFeedbackService } from './resource-feedback.service';
import { StoresModule } from '../stores/stores.module';

/** Product resource feedback (decisions §9) and its operator view (§10). */
@Module({
  imports: [StoresModule, ProductsModule],
  controllers: [ResourceFeedbackController, ResourceFeedbackOperatorController],
  providers: [ResourceFeedbackRepository, ProductFeedbackReadModel, ResourceFeedbackService],
  exports: [ResourceFeedbackService],
})
export class ResourceFeedbackModule {}
