import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ListingDocumentsReadModel } from './listing-documents.read-model';
import { ProductsRepository } from './products.repository';
import { renderListingDocument } from './product-listing';

const BATCH = 500;

/**
 * Keeps every product's stored listing document (docs/performance.md) in its store's zone: rows
 * written before the column existed, and every row of a store whose time zone changed. The listing
 * serves such rows correctly meanwhile (it renders them from their document), only slower; this
 * pass brings them back to the stored bytes. It runs once when the API starts and again for a
 * store whose zone the operator changed. A row written meanwhile keeps its own (newer) document:
 * each update is conditional on the row's `updated_at`.
 */
@Injectable()
export class ListingDocumentsWorker implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('listing-documents');
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly repository: ProductsRepository,
    private readonly stale: ListingDocumentsReadModel,
  ) {}

  onModuleInit(): void {
    this.refresh();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Starts a pass (or one more after the current one); resolves when no stale row is left. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.pass()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'listing documents not rendered; the listing renders them on read'))
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          void this.refresh();
        }
      });
    return this.running;
  }

  private async pass(): Promise<void> {
    let rendered = 0;
    for (;;) {
      if (this.stopped) return;
      const rows = await this.stale.stale(BATCH);
      if (rows.length === 0) break;
      let written = 0;
      for (const row of rows) {
        if (await this.repository.storeListingDocument(row.id, row.updated_at, renderListingDocument(row, row.zone), row.zone)) written++;
      }
      // Rows that all changed under the pass are being written by others, who store their own.
      if (written === 0) break;
      rendered += written;
    }
    if (rendered > 0) this.logger.log(`${rendered} listing document(s) rendered`);
  }
}
