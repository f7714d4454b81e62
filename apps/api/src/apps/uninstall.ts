import type { TransactionClient } from '@platform/db';

/**
 * What removing an app from a store takes away, in the caller's transaction (decisions §5.3, §11):
 * every token of the installation (invalid at once) and the installation itself; the app's webhook
 * subscriptions on the store, its pending deliveries ending as `failed` (nothing may be sent to an
 * app that is gone; sent ones stay as history); and codes and consent forms not yet used, which
 * would install it again. The same whether the operator uninstalls or the app cancels its grant.
 */
export async function removeInstallation(
  tx: TransactionClient,
  installation: { id: bigint; storeId: bigint; appId: bigint },
  now: Date,
  reason: string,
): Promise<void> {
  const { storeId, appId } = installation;
  await tx.accessToken.deleteMany({ where: { installationId: installation.id } });
  await tx.installation.delete({ where: { id: installation.id } });
  await tx.webhookSubscription.deleteMany({ where: { storeId, appId } });
  await tx.webhookDelivery.updateMany({
    where: { storeId, appId, status: 'pending' },
    data: { status: 'failed', lastError: reason, leaseOwner: null, leaseUntil: null, updatedAt: now },
  });
  await forgetUnusedGrants(tx, storeId, appId);
}

/** Codes and consent forms not yet used (they would install the app again). */
export async function forgetUnusedGrants(tx: TransactionClient, storeId: bigint, appId: bigint): Promise<void> {
  await tx.oAuthCode.deleteMany({ where: { storeId, appId, usedAt: null } });
  await tx.oAuthConsent.deleteMany({ where: { storeId, appId, usedAt: null } });
}
