import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';
import { StoresModule } from '../stores/stores.module';
import { WebhookEventsController } from './webhook-events.controller';
import { WebhookEventsRepository } from './webhook-events.repository';
import { WebhookEventsService } from './webhook-events.service';
import { WebhookMetrics } from './webhook-metrics';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhook subscriptions, the events written with their changes, the deliveries (decisions §11). */
@Module({
  imports: [StoresModule, AppsModule],
  controllers: [WebhooksController, WebhookEventsController],
  providers: [WebhooksRepository, WebhooksService, WebhookEventsRepository, WebhookEventsService, DeliveriesRepository, DeliveriesService, WebhookMetrics],
  exports: [WebhooksService, DeliveriesService, WebhookEventsService],
})
export class WebhooksModule {}
