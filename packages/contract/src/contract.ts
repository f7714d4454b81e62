import { metafieldDefinitionsContract, operatorMetafieldDefinitionsContract } from './metafield-definitions.contract';
import { metafieldsContract, operatorMetafieldsContract } from './metafields.contract';
import { oauthContract } from './oauth.contract';
import { operatorContract } from './operator.contract';
import { productsContract } from './products.contract';
import { operatorResourceFeedbackContract, resourceFeedbackContract } from './resource-feedback.contract';
import { shopContract } from './shop.contract';
import { operatorWebhooksContract, webhooksContract } from './webhooks.contract';

/** The Admin API: every route under `/admin/openapi/:version`, flat, one key per route. */
export const adminContract = {
  ...productsContract,
  ...shopContract,
  ...metafieldDefinitionsContract,
  ...metafieldsContract,
  ...webhooksContract,
  ...resourceFeedbackContract,
};

/** Both surfaces, for the server's handlers and the OpenAPI document. */
export const contract = {
  admin: adminContract,
  operator: {
    ...operatorContract,
    ...operatorMetafieldDefinitionsContract,
    ...operatorMetafieldsContract,
    ...operatorWebhooksContract,
    ...operatorResourceFeedbackContract,
  },
  /** decisions §5.2: the signed token calls of custom and public apps. */
  oauth: oauthContract,
};
