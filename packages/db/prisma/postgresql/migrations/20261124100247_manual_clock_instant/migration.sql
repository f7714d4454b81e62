-- The manual clock stores the instant it reads (it stands still until moved) instead of an offset
-- from real time, a stored offset becomes the instant it gave when this migration runs.
-- AlterTable
ALTER TABLE "platform_clock" ADD COLUMN "now_ms" BIGINT;
UPDATE "platform_clock" SET "now_ms" = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT + "offset_ms";
ALTER TABLE "platform_clock" ALTER COLUMN "now_ms" SET NOT NULL, DROP COLUMN "offset_ms";
