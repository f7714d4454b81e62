-- CreateTable
CREATE TABLE "oauth_signed_calls" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "app_id" BIGINT NOT NULL,
    "sign" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL,
    "created_at" DATETIME NOT NULL,
    CONSTRAINT "oauth_signed_calls_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "oauth_signed_calls_expires_at_idx" ON "oauth_signed_calls"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_signed_calls_app_id_sign_key" ON "oauth_signed_calls"("app_id", "sign");
