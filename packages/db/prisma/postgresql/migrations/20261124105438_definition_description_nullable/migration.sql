-- AlterTable
ALTER TABLE "metafield_definitions" ALTER COLUMN "description" DROP NOT NULL,
ALTER COLUMN "description" DROP DEFAULT;
-- Before this, a description never given and one cleared were both stored as "", both read as never given.
UPDATE "metafield_definitions" SET "description" = NULL WHERE "description" = '';
