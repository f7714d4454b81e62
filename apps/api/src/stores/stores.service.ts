import { Injectable } from '@nestjs/common';
import {
  canonicalTimeZone,
  checkStoreInput,
  DomainError,
  formatInZone,
  isValidStoreHandle,
  isValidTimeZone,
  joinIssues,
  OUT_OF_STORED_RANGE,
  parseStoredInstant,
} from '@platform/domain';
import type { TransactionClient } from '@platform/db';
import { ClockService } from '../core/clock.service';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { StoresRepository } from './stores.repository';

export interface StoreRecord {
  id: bigint;
  handle: string;
  name: string;
  email: string;
  customerEmail: string;
  currency: string;
  ianaTimezone: string;
  status: string;
  planExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface StoreCreate {
  handle: string;
  name: string;
  iana_timezone?: string | null;
  currency?: string | null;
  email?: string | null;
  customer_email?: string | null;
}

export interface StoreUpdate {
  status?: 'active' | 'frozen' | 'closed';
  plan_expires_at?: string | null;
  name?: string;
  iana_timezone?: string;
  currency?: string;
  email?: string;
  customer_email?: string;
}

const CURRENCY = /^[A-Z]{3}$/;

@Injectable()
export class StoresService {
  constructor(
    private readonly repository: StoresRepository,
    @InjectConfig() private readonly config: Config,
    private readonly clock: ClockService,
  ) {}

  domainOf(handle: string): string {
    return `${handle}.${this.config.baseDomain}`;
  }

  async create(input: StoreCreate): Promise<StoreRecord> {
    const issues: { field: string; message: string }[] = [];
    if (!isValidStoreHandle(input.handle)) {
      issues.push({ field: 'handle', message: 'must be 3-63 characters of a-z, 0-9 and -, not starting or ending with -' });
    }
    // decisions §12.9: a name without control characters, e-mail addresses that are e-mail addresses.
    issues.push(...checkStoreInput(input));
    const timeZone = input.iana_timezone ?? 'UTC';
    if (!isValidTimeZone(timeZone)) issues.push({ field: 'iana_timezone', message: `'${timeZone}' is not an IANA time zone` });
    const currency = input.currency ?? 'USD';
    if (!CURRENCY.test(currency)) issues.push({ field: 'currency', message: 'must be an ISO 4217 code such as USD' });
    if (issues.length > 0) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    const email = input.email ?? `owner@${this.domainOf(input.handle)}`;
    return this.repository.create({
      handle: input.handle,
      name: input.name,
      ianaTimezone: canonicalTimeZone(timeZone),
      currency,
      email,
      customerEmail: input.customer_email ?? email,
      now: this.clock.now(),
    });
  }

  async get(handle: string): Promise<StoreRecord> {
    const store = await this.repository.byHandle(handle);
    if (!store) throw new DomainError('NOT_FOUND', `Store '${handle}' not found`);
    return store;
  }

  /** The store of `handle`, or null (the demo seed asks whether it ran before). */
  find(handle: string): Promise<StoreRecord | null> {
    return this.repository.byHandle(handle);
  }

  /** Moves the store's catalog revision in the caller's transaction: a write the product listing shows. */
  bumpCatalogRevision(tx: TransactionClient, id: bigint): Promise<void> {
    return this.repository.bumpCatalogRevision(tx, id);
  }

  async getById(id: bigint): Promise<StoreRecord> {
    const store = await this.repository.byId(id);
    if (!store) throw new DomainError('NOT_FOUND', 'Not Found');
    return store;
  }

  async update(handle: string, input: StoreUpdate): Promise<StoreRecord> {
    const store = await this.get(handle);
    const issues: { field: string; message: string }[] = [];
    let planExpiresAt: Date | null | undefined;
    if (input.plan_expires_at === null) planExpiresAt = null;
    else if (input.plan_expires_at !== undefined) {
      const parsed = parseStoredInstant(input.plan_expires_at);
      if (parsed.ok) planExpiresAt = parsed.value;
      else {
        const message = parsed.message === OUT_OF_STORED_RANGE ? parsed.message : 'must be an ISO 8601 time with an offset';
        issues.push({ field: 'plan_expires_at', message });
      }
    }
    if (input.iana_timezone !== undefined && !isValidTimeZone(input.iana_timezone)) {
      issues.push({ field: 'iana_timezone', message: `'${input.iana_timezone}' is not an IANA time zone` });
    }
    if (input.currency !== undefined && !CURRENCY.test(input.currency)) {
      issues.push({ field: 'currency', message: 'must be an ISO 4217 code such as USD' });
    }
    issues.push(...checkStoreInput(input));
    if (issues.length > 0) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    return this.repository.update(
      store.id,
      {
        status: input.status,
        planExpiresAt,
        name: input.name,
        ianaTimezone: input.iana_timezone === undefined ? undefined : canonicalTimeZone(input.iana_timezone),
        currency: input.currency,
        email: input.email,
        customerEmail: input.customer_email,
      },
      this.clock.now(),
    );
  }

  // Two wire formats kept apart on purpose: the operator's store (status, plan_expires_at) and the Admin shop (biz_store_status, decisions §3.6).
  toOperator(store: StoreRecord) {
    const tz = store.ianaTimezone;
    return {
      id: store.id.toString(),
      handle: store.handle,
      name: store.name,
      domain: this.domainOf(store.handle),
      email: store.email,
      customer_email: store.customerEmail,
      currency: store.currency,
      iana_timezone: tz,
      status: store.status as 'active' | 'frozen' | 'closed',
      plan_expires_at: store.planExpiresAt ? formatInZone(store.planExpiresAt, tz) : null,
      created_at: formatInZone(store.createdAt, tz),
      updated_at: formatInZone(store.updatedAt, tz),
    };
  }

  /** decisions §3.6: the store information read. */
  toShop(store: StoreRecord) {
    const tz = store.ianaTimezone;
    return {
      id: store.id.toString(),
      name: store.name,
      handle: store.handle,
      domain: this.domainOf(store.handle),
      email: store.email,
      customer_email: store.customerEmail,
      currency: store.currency,
      iana_timezone: tz,
      biz_store_status: store.status as 'active' | 'frozen' | 'closed',
      created_at: formatInZone(store.createdAt, tz),
      updated_at: formatInZone(store.updatedAt, tz),
    };
  }
}
