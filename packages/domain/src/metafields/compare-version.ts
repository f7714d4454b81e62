// decisions §2.6: version-dependent metafield rules live here. Versions are `v` + `YYYYMMDD`, so a
// lexical comparison orders them by date.
export const NON_EMPTY_VALUE_SINCE = 'v20260901';

/** From v20260901 a metafield value cannot be empty (`""`); before it `""` is accepted and skips the rules. */
export function rejectsEmptyValue(version: string): boolean {
  return version >= NON_EMPTY_VALUE_SINCE;
}
