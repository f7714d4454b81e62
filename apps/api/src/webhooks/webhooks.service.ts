import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { WebhookSubscription } from '@platform/db';
import {
  checkWebhookAddress,
  DomainError,
  hasScope,
  isWebhookTopic,
  joinIssues,
  MAX_WEBHOOKS_PER_APP_AND_STORE,
  supportedVersions,
  WEBHOOK_STATUSES,
  WEBHOOK_TOPIC_SCOPE,
  WEBHOOK_TOPICS,
  type WebhookTopic,
} from '@platform/domain';
import { AppRemovalSteps } from '../apps/app-removal';
import { AppsService } from '../apps/apps.service';
import { ClockService } from '../core/clock.service';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { isConflict } from '../core/prisma-errors';
import { pathId } from '../http/ids';
import { readPageRequest, renderKeysetPage, type PageQuery, type RenderedPage } from '../http/keyset-pagination';
import type { AuthContext } from '../access/request-context';
import { pickFields, webhookJson, type WebhookJson } from './webhook-view';
import { WebhooksRepository, type SubscriptionChanges } from './webhooks.repository';

export interface WebhookInput {
  topic?: string | undefined;
  address?: string | undefined;
  api_version?: string | undefined;
  status?: string | undefined;
}

export interface WebhookListQuery extends PageQuery {
  topic?: string;
}

type Issue = { field: string; message: string };

const TOPIC_MESSAGE = `is not a supported topic (${WEBHOOK_TOPICS.join(', ')})`;

/** decisions §5.5: a subscription needs the read scope of its topic; 403 naming it. */
function assertTopicScope(auth: AuthContext, topic: WebhookTopic): void {
  const scope = WEBHOOK_TOPIC_SCOPE[topic];
  if (!hasScope(auth.scopes, scope)) throw new DomainError('MISSING_SCOPE', `This action requires the access scope ${scope}`);
}

/** decisions §11.1-§11.2: webhook subscriptions of one app on one store. */
@Injectable()
export class WebhooksService implements OnModuleInit {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
    private readonly removalSteps: AppRemovalSteps,
    private readonly apps: AppsService,
  ) {}

  /**
   * An app leaving a store (uninstall, cancel, delete) takes its subscriptions there with it, and its
   * pending deliveries end `failed` with the reason (nothing may be sent to an app that is gone;
   * sent ones stay as history). decisions §5.3, §11.
   */
  onModuleInit(): void {
    this.removalSteps.add((tx, removal) => this.repository.removeForApp(tx, removal));
  }

  /** An app's subscriptions on a store, oldest first (the merchant's deliveries page). */
  listForApp(storeId: bigint, appId: bigint, take: number) {
    return this.repository.listForApp(storeId, appId, take);
  }

  async create(auth: AuthContext, input: WebhookInput, requestVersion: string): Promise<WebhookJson> {
    const issues: Issue[] = [];
    const topic = this.topicOf(auth, input.topic, issues);
    const address = this.addressOf(input.address, issues);
    const apiVersion = input.api_version === undefined ? requestVersion : this.versionOf(input.api_version, issues);
    const status = input.status === undefined ? 'enabled' : this.statusOf(input.status, issues);
    if (issues.length > 0 || topic === undefined) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    try {
      const row = await this.repository.create(
        { storeId: auth.store.id, appId: auth.appId, topic, address, apiVersion, status },
        this.clock.now(),
        MAX_WEBHOOKS_PER_APP_AND_STORE,
        (tx) => this.apps.lock(tx, auth.appId),
      );
      if (!row) throw tooMany();
      return webhookJson(row, auth.store.ianaTimezone);
    } catch (error) {
      // The unique index decides, so concurrent duplicates give exactly one subscription.
      if (isConflict(error, 'unique')) throw duplicate(topic, address);
      throw error;
    }
  }

  async get(auth: AuthContext, rawId: string): Promise<WebhookJson> {
    const row = await this.owned(auth, rawId);
    return webhookJson(row, auth.store.ianaTimezone);
  }

  async update(auth: AuthContext, rawId: string, input: WebhookInput): Promise<WebhookJson> {
    const row = await this.owned(auth, rawId);
    const issues: Issue[] = [];
    const topic = input.topic === undefined ? (row.topic as WebhookTopic) : this.topicOf(auth, input.topic, issues);
    const address = input.address === undefined ? undefined : this.addressOf(input.address, issues);
    const apiVersion = input.api_version === undefined ? undefined : this.versionOf(input.api_version, issues);
    const status = input.status === undefined ? undefined : this.statusOf(input.status, issues);
    if (issues.length > 0 || topic === undefined) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    // What the body leaves out is taken from the row as it is under the lock, not as read above.
    const merge = (current: WebhookSubscription): SubscriptionChanges => {
      const next = status ?? current.status;
      return {
        topic: input.topic === undefined ? current.topic : topic,
        address: address ?? current.address,
        apiVersion: apiVersion ?? current.apiVersion,
        status: next,
        reenabled: next === 'enabled' && current.status !== 'enabled',
        disabledByApp: next === 'disabled' && current.status !== 'disabled',
      };
    };
    try {
      const updated = await this.repository.update({ storeId: auth.store.id, appId: auth.appId, id: row.id }, merge, this.clock.now());
      if (!updated) throw new DomainError('NOT_FOUND', 'Not Found');
      return webhookJson(updated, auth.store.ianaTimezone);
    } catch (error) {
      if (isConflict(error, 'unique')) throw duplicate(topic, address ?? row.address);
      throw error;
    }
  }

  async remove(auth: AuthContext, rawId: string): Promise<void> {
    const row = await this.owned(auth, rawId);
    if (!(await this.repository.remove(row, this.clock.now()))) throw new DomainError('NOT_FOUND', 'Not Found');
  }

  /** The app's subscriptions on the store whose topic the token may read, paginated (decisions §6). */
  list(auth: AuthContext, query: WebhookListQuery, pageUrl: string): Promise<RenderedPage> {
    // The cursor belongs to this app on this store: another app's (or store's) cursor is a 400.
    const scope = { r: 'webhooks', s: `${auth.store.id}:${auth.appId}` };
    const request = readPageRequest(query, scope, this.config, (): Record<string, string> => {
      if (query.topic === undefined) return {};
      if (!isWebhookTopic(query.topic)) throw new DomainError('INVALID_PARAMETER', `topic: ${TOPIC_MESSAGE}`);
      return { topic: query.topic };
    });
    const readable = WEBHOOK_TOPICS.filter((t) => hasScope(auth.scopes, WEBHOOK_TOPIC_SCOPE[t]));
    const topics = request.filters['topic'] !== undefined ? readable.filter((t) => t === request.filters['topic']) : readable;
    return renderKeysetPage(request, 'webhooks', scope, this.config.secret, pageUrl, {
      fetch: (take) =>
        this.repository.page({
          storeId: auth.store.id,
          appId: auth.appId,
          topics,
          direction: request.direction,
          boundary: BigInt(request.boundary),
          sinceId: BigInt(request.sinceId),
          take,
        }),
      idOf: (row) => row.id.toString(),
      render: (row) => JSON.stringify(pickFields(webhookJson(row, auth.store.ianaTimezone), request.fields)),
      tooLarge: (row) => `Webhook ${row.id.toString()} alone exceeds the 8 MB response limit`,
    });
  }

  /** The caller's own subscription: another app's or store's is a 404 (its existence does not leak). */
  private async owned(auth: AuthContext, rawId: string): Promise<WebhookSubscription> {
    const row = await this.repository.find(auth.store.id, auth.appId, pathId(rawId));
    if (!row) throw new DomainError('NOT_FOUND', 'Not Found');
    if (isWebhookTopic(row.topic)) assertTopicScope(auth, row.topic);
    return row;
  }

  private topicOf(auth: AuthContext, raw: string | undefined, issues: Issue[]): WebhookTopic | undefined {
    if (raw === undefined || raw === '') {
      issues.push({ field: 'topic', message: "can't be blank" });
      return undefined;
    }
    if (!isWebhookTopic(raw)) {
      issues.push({ field: 'topic', message: TOPIC_MESSAGE });
      return undefined;
    }
    // decisions §4 order: the scope (403) before the body's other rules (422).
    assertTopicScope(auth, raw);
    return raw;
  }

  private addressOf(raw: string | undefined, issues: Issue[]): string {
    const result = checkWebhookAddress(raw ?? '', { allowPrivate: this.config.webhookAllowPrivate });
    if (result.ok) return result.value.url;
    issues.push({ field: 'address', message: result.message });
    return '';
  }

  /** decisions §2: a supported version, exactly (a retired one would be served by another: refused). */
  private versionOf(raw: string, issues: Issue[]): string {
    const supported = supportedVersions(this.clock.now());
    if (supported.includes(raw)) return raw;
    // The answer never echoes a long input back whole.
    const shown = raw.length > 20 ? `${raw.slice(0, 20)}...` : raw;
    issues.push({ field: 'api_version', message: `'${shown}' is not a supported version (${supported.join(', ')})` });
    return '';
  }

  private statusOf(raw: string, issues: Issue[]): string {
    if ((WEBHOOK_STATUSES as readonly string[]).includes(raw)) return raw;
    issues.push({ field: 'status', message: `is not included in the list (${WEBHOOK_STATUSES.join(', ')})` });
    return '';
  }
}

function tooMany(): DomainError {
  return new DomainError(
    'VALIDATION_FAILED',
    `webhook: this app already has ${MAX_WEBHOOKS_PER_APP_AND_STORE} subscriptions on this store, the most an app may have; delete one to add another`,
  );
}

function duplicate(topic: string, address: string): DomainError {
  return new DomainError('VALIDATION_FAILED', `address: has already been taken (this app already subscribes ${address} to ${topic})`);
}
