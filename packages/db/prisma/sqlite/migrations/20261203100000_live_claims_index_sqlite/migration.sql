-- Hand-written. The index of lease_until serves one read: the live claims with a host (the attempts
-- in flight), counted by every claim of the sender (apps/webhooks walk.ts, LIVE_ROWS, which asks for
-- `lease_host IS NOT NULL`). It held every leased delivery, also the ones a sender holds for a slot
-- to come, which no count reads (their lease_host is null): every claim wrote an entry for each of
-- them and every record deleted it. It now holds only the claims with a host, a few per receiving
-- host, so a held delivery's lease and record no longer touch it (bench/webhooks, 2026-12-03: about
-- 3 us of the SQLite sender's CPU a delivery less). The name stays (the models declare it).

-- DropIndex
DROP INDEX "webhook_deliveries_lease_until_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_lease_until_idx" ON "webhook_deliveries"("lease_until") WHERE "lease_host" IS NOT NULL;
