export { providerOf, redactUrl, type Provider } from './provider';
export {
  env,
  envVariable,
  LOG_LEVELS,
  parseEnv,
  readSharedSettings,
  ZSharedEnv,
  sharedSettingsOf,
  type LogLevel,
  type SharedSettings,
} from './settings';
export {
  createDb,
  DEFAULT_SQLITE_DRIVER,
  type CreateDbOptions,
  type Db,
  type PrismaClient,
  type QueryOptions,
  type TransactionClient,
} from './client';
export { parseSqliteDateTime, SQLITE_BUSY_TIMEOUT_MS, type SqliteDriver } from './sqlite';
export type { SqliteAdapterConnection } from './sqlite-adapter';
export {
  migrate,
  MigrationLockTimeoutError,
  pendingMigrations,
  prepareSchema,
  SchemaBehindError,
  type MigrateMode,
  type MigrateOptions,
} from './migrate';
export { DEFAULT_MIGRATE_LOCK_ATTEMPTS, DEFAULT_MIGRATE_LOCK_TIMEOUT_MS } from './migration-script';
export { MIGRATION_LOCK_KEY } from './migrate-lock';
export { DatabaseUnavailableError, describeDatabaseError, probeDatabase } from './startup';
export { ListenError, listenError } from './listen-error';
export { syncIdSequence } from './sequences';
export { allocateIds } from './ids';
export { insertRows, updateRows, type BulkTarget, type RowUpdate } from './bulk';
export { platformLogger } from './logger';
export { registerPoolMetrics } from './pool-metrics';
// The error classes (PrismaClientKnownRequestError: P2002 ...) are shared by both generated
// clients (one runtime), so `instanceof Prisma.PrismaClientKnownRequestError` holds on both.
export { Prisma } from './generated/sqlite/client';
export type {
  AccessToken,
  App,
  FulfillmentOrder,
  Installation,
  InventoryItem,
  Metafield,
  MetafieldDefinition,
  MetafieldRecheck,
  Metaobject,
  MetaobjectDefinition,
  OAuthCode,
  PlatformClock,
  Product,
  ProductImage,
  ProductMedia,
  ProductOption,
  ProductVariant,
  Store,
  WebhookAttempt,
  WebhookDelivery,
  WebhookSubscription,
} from './generated/sqlite/client';
export { currentTraceId, withTraceId } from './trace-context';
export { inOutboxTransaction, writeWebhookDeliveries, type EmitWebhookEvent, type WebhookEvent } from './outbox';
export { OUTBOX_CHANNEL, wakeFileOf, wakeSenders, watchOutbox, type OutboxWatch } from './outbox-wake';
export { openPgSession, type PgSession } from './pg-session';
export type { ScriptPart } from './postgresql';
export { COUNTS_FOLD_LOCK_KEY, foldDeliveryCounts, FOLD_DELIVERY_COUNTS, readDeliveryCounts, type CountsQuery } from './delivery-counts';
export { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer';
