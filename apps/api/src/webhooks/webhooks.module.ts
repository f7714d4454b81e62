import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { StoresModule } from '../stores/stores.module';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';
import { WebhookMetrics } from './webhook-metrics';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * Webhook subscriptions and their deliveries (decisions §11). The events themselves are written by
 * the features whose changes emit them (`inventory/`), through the outbox of `@platform/db`.
 */
@Module({
  imports: [StoresModule, AppsModule],
  controllers: [WebhooksController, DeliveriesController],
  providers: [WebhooksRepository, WebhooksService, DeliveriesRepository, DeliveriesService, WebhookMetrics],
  exports: [WebhooksService, DeliveriesService],
})
export class WebhooksModule {}
