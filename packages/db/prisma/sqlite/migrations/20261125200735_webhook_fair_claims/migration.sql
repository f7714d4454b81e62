-- DropIndex
DROP INDEX "webhook_deliveries_subscription_id_status_id_idx";

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN "lease_host" TEXT;

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_idx" ON "webhook_deliveries"("status", "subscription_id", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_lease_until_idx" ON "webhook_deliveries"("lease_until");
