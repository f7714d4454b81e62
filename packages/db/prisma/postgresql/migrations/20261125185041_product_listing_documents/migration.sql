-- AlterTable
ALTER TABLE "products" ADD COLUMN     "listing_doc" BYTEA,
ADD COLUMN     "listing_zone" TEXT;
