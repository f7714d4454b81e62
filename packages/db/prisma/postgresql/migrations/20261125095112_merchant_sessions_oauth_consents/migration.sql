-- CreateTable
CREATE TABLE "merchant_sign_in_links" (
    "id" BIGSERIAL NOT NULL,
    "store_id" BIGINT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merchant_sign_in_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "merchant_sessions" (
    "id" BIGSERIAL NOT NULL,
    "store_id" BIGINT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merchant_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_consents" (
    "id" BIGSERIAL NOT NULL,
    "session_id" BIGINT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "store_id" BIGINT NOT NULL,
    "app_id" BIGINT NOT NULL,
    "scopes" TEXT NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "custom_field" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_consents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "merchant_sign_in_links_token_hash_key" ON "merchant_sign_in_links"("token_hash");

-- CreateIndex
CREATE INDEX "merchant_sign_in_links_store_id_idx" ON "merchant_sign_in_links"("store_id");

-- CreateIndex
CREATE UNIQUE INDEX "merchant_sessions_token_hash_key" ON "merchant_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "merchant_sessions_store_id_idx" ON "merchant_sessions"("store_id");

-- CreateIndex
CREATE INDEX "merchant_sessions_expires_at_idx" ON "merchant_sessions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_consents_token_hash_key" ON "oauth_consents"("token_hash");

-- CreateIndex
CREATE INDEX "oauth_consents_session_id_idx" ON "oauth_consents"("session_id");

-- CreateIndex
CREATE INDEX "oauth_consents_store_id_idx" ON "oauth_consents"("store_id");

-- CreateIndex
CREATE INDEX "oauth_consents_app_id_idx" ON "oauth_consents"("app_id");

-- AddForeignKey
ALTER TABLE "merchant_sign_in_links" ADD CONSTRAINT "merchant_sign_in_links_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merchant_sessions" ADD CONSTRAINT "merchant_sessions_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_consents" ADD CONSTRAINT "oauth_consents_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "merchant_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_consents" ADD CONSTRAINT "oauth_consents_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_consents" ADD CONSTRAINT "oauth_consents_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;
