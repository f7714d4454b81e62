import { isWellFormedVersion } from './list-releases';

/** True when `v` is the same version as `min` or a later one. Both must be well-formed. */
export function versionAtLeast(v: string, min: string): boolean {
  if (!isWellFormedVersion(v)) throw new RangeError(`versions: '${v}' is not a well-formed version`);
  if (!isWellFormedVersion(min)) throw new RangeError(`versions: '${min}' is not a well-formed version`);
  // Fixed width `vYYYYMMDD`: string order is date order.
  return v >= min;
}

// decisions §2.6: version-dependent rules live here.

/** decisions §2.6: the first version that rejects an empty metafield value. */
export const EMPTY_VALUE_FORBIDDEN_FROM = 'v20260901';

/** decisions §2.6: from v20260901 a metafield value `""` is rejected; before it, it is accepted and skips the rules. */
export function isEmptyValueForbidden(version: string): boolean {
  return versionAtLeast(version, EMPTY_VALUE_FORBIDDEN_FROM);
}
