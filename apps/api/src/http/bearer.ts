import { safeEqual } from '@platform/domain';

/**
 * The token of `Authorization: Bearer <token>` (the one reading of the header for every caller:
 * apps, the operator, a metrics scraper); undefined without the header, '' for one of another form.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '';
}

/** decisions §10: the operator token, compared in constant time. */
export function isOperatorToken(header: string | undefined, operatorToken: string): boolean {
  return safeEqual(bearerToken(header) ?? '', operatorToken);
}
