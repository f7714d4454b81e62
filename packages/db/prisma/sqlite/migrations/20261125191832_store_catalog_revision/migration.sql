-- AlterTable (written by hand: the generated rebuild of "stores" is not needed to add a column with a default)
ALTER TABLE "stores" ADD COLUMN "catalog_revision" BIGINT NOT NULL DEFAULT 0;
