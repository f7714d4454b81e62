import type { Provider, Type } from '@nestjs/common';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';
import { WebhookEventsController } from './webhook-events.controller';
import { WebhookEventsRepository } from './webhook-events.repository';
import { WebhookEventsService } from './webhook-events.service';
import { WebhookMetrics } from './webhook-metrics';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhook subscriptions, the events written with their changes, the deliveries (decisions §11): registered by AppModule. */
export const webhooksFeature: { controllers: Type[]; providers: Provider[] } = {
  controllers: [WebhooksController, WebhookEventsController],
  providers: [
    WebhooksRepository,
    WebhooksService,
    WebhookEventsRepository,
    WebhookEventsService,
    DeliveriesRepository,
    DeliveriesService,
    WebhookMetrics,
  ],
};
