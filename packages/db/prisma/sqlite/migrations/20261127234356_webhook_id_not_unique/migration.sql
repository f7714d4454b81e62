-- X-Platform-Webhook-Id is a random UUID made by the outbox, unique by construction, and nothing
-- looks a delivery up by it: the unique index cost every write of a delivery row a look-up.
-- DropIndex
DROP INDEX "webhook_deliveries_webhook_id_key";
