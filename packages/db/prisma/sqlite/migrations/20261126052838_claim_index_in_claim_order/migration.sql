-- DropIndex
DROP INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_lease_until_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_id_lease_until_idx" ON "webhook_deliveries"("status", "subscription_id", "next_attempt_at", "id", "lease_until");
