-- DropIndex
DROP INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_l_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx" ON "webhook_deliveries"("status", "subscription_id", "next_attempt_at", "id", "lease_until");
