import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { InjectDb } from '../core/injection';
import type { FeedbackRow } from './resource-feedback.repository';

export type FeedbackWithApp = FeedbackRow & { app: { id: bigint; name: string } };

/**
 * A read model (docs/architecture.md, "Tables and their owners"): a product's feedback with the
 * names of the apps that gave it, for the operator's list and the merchant's page. It reads the
 * apps room's installations and apps; it writes nothing.
 */
@Injectable()
export class ProductFeedbackReadModel {
  constructor(@InjectDb() private readonly db: Db) {}

  /** Every app's feedback on a product, ascending app id, with the app's name (decisions §10). */
  async listForProduct(storeId: bigint, productId: bigint): Promise<FeedbackWithApp[]> {
    const rows = await this.db.prisma.resourceFeedback.findMany({
      where: { storeId, productId },
      orderBy: { appId: 'asc' },
      include: { installation: { select: { app: { select: { id: true, name: true } } } } },
    });
    return rows.map(({ installation, ...row }) => ({ ...row, app: installation.app }));
  }
}
