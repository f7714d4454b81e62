import { initContract } from '@ts-rest/core';
import {
  ADMIN_PATH_PREFIX,
  commonResponses,
  OPERATOR_PATH_PREFIX,
  operatorResponses,
  type AdminRouteMetadata,
  type OperatorRouteMetadata,
} from './common';

/** Internal to the package: the feature contracts share one builder and one set of router options. */
export const c: ReturnType<typeof initContract> = initContract();

export const adminRouterOptions = {
  pathPrefix: ADMIN_PATH_PREFIX,
  commonResponses,
  metadata: { auth: 'app' } satisfies Pick<AdminRouteMetadata, 'auth'>,
} as const;

export const operatorRouterOptions = {
  pathPrefix: OPERATOR_PATH_PREFIX,
  commonResponses: operatorResponses,
  metadata: { auth: 'operator' } satisfies OperatorRouteMetadata,
} as const;
