import type { TransactionClient } from '@platform/db';

/**
 * What another feature takes away when an app leaves a store, in the removal's transaction
 * (decisions §5.3, §11): the webhook feature its subscriptions and pending deliveries, OAuth its
 * unused codes and consent forms. Features register their step when they start; the apps feature
 * runs them without knowing them (so it imports none of them).
 */
export type AppRemovalStep = (
  tx: TransactionClient,
  removal: { storeId: bigint; appId: bigint; now: Date; reason: string },
) => Promise<void>;

export class AppRemovalSteps {
  private readonly steps: AppRemovalStep[] = [];

  add(step: AppRemovalStep): void {
    this.steps.push(step);
  }

  async run(tx: TransactionClient, removal: Parameters<AppRemovalStep>[1]): Promise<void> {
    for (const step of this.steps) await step(tx, removal);
  }
}
