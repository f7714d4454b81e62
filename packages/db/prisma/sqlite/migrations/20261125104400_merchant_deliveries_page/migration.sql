-- CreateIndex
CREATE INDEX "webhook_deliveries_store_id_app_id_id_idx" ON "webhook_deliveries"("store_id", "app_id", "id");
