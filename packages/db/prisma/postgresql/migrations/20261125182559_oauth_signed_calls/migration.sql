-- CreateTable
CREATE TABLE "oauth_signed_calls" (
    "id" BIGSERIAL NOT NULL,
    "app_id" BIGINT NOT NULL,
    "sign" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "oauth_signed_calls_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "oauth_signed_calls_expires_at_idx" ON "oauth_signed_calls"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_signed_calls_app_id_sign_key" ON "oauth_signed_calls"("app_id", "sign");

-- AddForeignKey
ALTER TABLE "oauth_signed_calls" ADD CONSTRAINT "oauth_signed_calls_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;
