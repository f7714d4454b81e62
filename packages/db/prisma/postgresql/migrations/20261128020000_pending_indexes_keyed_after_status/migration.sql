-- Hand-written. The two partial indexes of pending deliveries lose their leading "status" column
-- (the models keep declaring them as [status, ...], by the same names: Prisma schemas have no
-- partial indexes). Their predicate (status = 'pending') implies every query's status = 'pending',
-- so PostgreSQL drops that condition from an index scan, and a B-tree scan with no condition on its
-- first column starts at the first page of the index and tests every entry up to what it looks for:
-- a subscription's due count, oldest row and pick read the parts of every subscription before it,
-- and the walk's seek for the next subscription id read the whole previous part, on every claim (a
-- claim walking eight subscriptions of 4,000 deliveries read 1,600 to 2,300 pages of a 197-page
-- index), and "the next delivery due after now" read every due entry first. Keyed by what the
-- queries bound, each scan starts where its rows are (apps/webhooks test/claim-reads.e2e.test.ts).
-- SQLite keeps the status column: its planner uses the equality as the scan's first key.
--
-- One DO statement, so one transaction (the migration runner commits each semicolon-separated
-- piece on its own): the indexes are never missing while senders claim. Each semicolon of the body
-- is spelled \003B and each quote doubled.

DO U&'
BEGIN
DROP INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx"\003B
CREATE INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx" ON "webhook_deliveries"("subscription_id", "next_attempt_at", "id") WHERE "status" = ''pending''\003B
DROP INDEX "webhook_deliveries_status_next_attempt_at_idx"\003B
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "status" = ''pending''\003B
END
';
