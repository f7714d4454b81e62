import type { WebhookSubscription } from '@platform/db';
import { formatInZone } from '@platform/domain';

export interface WebhookJson {
  id: string;
  topic: 'inventory_items/update' | 'fulfillment_order/released';
  address: string;
  api_version: string;
  status: 'enabled' | 'disabled';
  created_at: string;
  updated_at: string;
}

/** The `webhook` object of the contract (decisions §11.1), times in the store's zone (§3.3). */
export function webhookJson(row: WebhookSubscription, timeZone: string): WebhookJson {
  return {
    id: row.id.toString(),
    topic: row.topic as WebhookJson['topic'],
    address: row.address,
    api_version: row.apiVersion,
    status: row.status as WebhookJson['status'],
    created_at: formatInZone(row.createdAt, timeZone),
    updated_at: formatInZone(row.updatedAt, timeZone),
  };
}

/** decisions §6.4: the named top-level fields, `id` always. */
export function pickFields<T extends { id: string }>(json: T, fields: ReadonlySet<string> | undefined): Partial<T> {
  if (!fields) return json;
  const picked: Record<string, unknown> = { id: json.id };
  for (const field of fields) if (Object.prototype.hasOwnProperty.call(json, field)) picked[field] = json[field as keyof T];
  return picked as Partial<T>;
}
