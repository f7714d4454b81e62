-- Hand-written: the models keep declaring these indexes, by the same names (Prisma schemas have no
-- partial indexes). The three indexes of webhook_deliveries that only pending or leased rows are
-- looked up by hold only those rows: a delivered or failed delivery's row version gets no entry in
-- them. Recording an attempt (it sets status and clears the lease) then writes four index entries
-- instead of seven, about 15 us a row instead of 21 (docs/webhooks-sender.md), and the indexes stay
-- the size of the queue, not of the history. Every query that reads them names status = 'pending'
-- as a literal or compares lease_until (which implies IS NOT NULL), as the planner needs to use a
-- partial index. Prisma's parameterised ones get plans made for their values (unnamed statements).
-- SQLite keeps them whole: it updates only the indexes whose columns change, and it cannot use a
-- partial index for Prisma's `status = ?`.

-- DropIndex
DROP INDEX "webhook_deliveries_status_next_attempt_at_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at") WHERE "status" = 'pending';

-- DropIndex
DROP INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx" ON "webhook_deliveries"("status", "subscription_id", "next_attempt_at", "id", "lease_until") WHERE "status" = 'pending';

-- DropIndex
DROP INDEX "webhook_deliveries_lease_until_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_lease_until_idx" ON "webhook_deliveries"("lease_until") WHERE "lease_until" IS NOT NULL;
