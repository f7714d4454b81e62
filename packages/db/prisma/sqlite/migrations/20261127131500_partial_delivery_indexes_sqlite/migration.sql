-- Hand-written, as PostgreSQL's 20261126143000_partial_delivery_indexes: the three indexes of
-- webhook_deliveries that only pending or leased rows are looked up by hold only those rows (the
-- models keep declaring them, by the same names: Prisma schemas have no partial indexes). A
-- delivered or failed delivery then leaves them instead of moving to another part of them: whole,
-- every record wrote its entries into the 'delivered' part of (status, subscription_id, ...), one
-- region per subscription, and its NULL lease into the head of (lease_until), both growing with the
-- history and splitting pages mid-index. The indexes stay the size of the queue. SQLite uses a
-- partial index for `status = 'pending'` written as a literal and for a parameter bound to
-- 'pending' (it prepares the statement again when such a binding changes), and `lease_until > ?`
-- implies `lease_until IS NOT NULL` (packages/db src/sqlite-partial-indexes.test.ts).

-- DropIndex
DROP INDEX "webhook_deliveries_status_next_attempt_at_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at") WHERE "status" = 'pending';

-- DropIndex
DROP INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_id_lease_until_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_id_lease_until_idx" ON "webhook_deliveries"("status", "subscription_id", "next_attempt_at", "id", "lease_until") WHERE "status" = 'pending';

-- DropIndex
DROP INDEX "webhook_deliveries_lease_until_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_lease_until_idx" ON "webhook_deliveries"("lease_until") WHERE "lease_until" IS NOT NULL;
