import { DomainError } from '../errors/define-errors';

/** What decides whether a store may be used (decisions §5.6). */
export interface StoreStanding {
  status: string;
  planExpiresAt: Date | null;
}

/**
 * decisions §5.6: a closed store is 423; a frozen one, or one whose plan has expired by `now`,
 * is 402. Checked after authentication, on the Admin API and on the OAuth flows alike.
 */
export function checkStoreStatus(store: StoreStanding, now: Date): void {
  if (store.status === 'closed') throw new DomainError('STORE_CLOSED', 'This store is closed');
  if (store.status === 'frozen') throw new DomainError('PAYMENT_REQUIRED', 'This store is frozen; its requests are restricted');
  if (store.planExpiresAt && store.planExpiresAt.getTime() <= now.getTime()) {
    throw new DomainError('PAYMENT_REQUIRED', "This store's plan has expired; its requests are restricted");
  }
}
