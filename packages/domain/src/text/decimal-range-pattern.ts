/**
 * The decimal integers 0..max as a regular expression's body: `9223372036854775807` gives
 * `[0-9]{1,18}|[1-8][0-9]{18}|9[01][0-9]{17}|...|9223372036854775807`. Without `leadingZeros`, a
 * number has none (`0`, `7`, `10`), as the server's id parser wants; `positive` leaves out `0`
 * (1..max, for ids that start at 1; only without leading zeros). Used by the OpenAPI document's
 * patterns (ids, the integer bound of number_integer) and by the domain's own.
 */
export function decimalsUpTo(max: bigint, leadingZeros: boolean, positive = false): string {
  if (positive && leadingZeros) throw new RangeError('positive decimals are written without leading zeros');
  const digits = max.toString();
  const shorter = digits.length - 1;
  const branches: string[] = [];
  if (shorter > 0) {
    if (leadingZeros) branches.push(`[0-9]{1,${shorter}}`);
    else {
      if (!positive) branches.push('0');
      branches.push(shorter > 1 ? `[1-9][0-9]{0,${shorter - 1}}` : '[1-9]');
    }
  }
  for (let i = 0; i < digits.length; i++) {
    const d = Number(digits[i]);
    const rest = digits.length - i - 1;
    const tail = rest === 0 ? '' : `[0-9]{${rest}}`;
    const low = i === 0 && (digits.length > 1 || positive) ? 1 : 0;
    if (d > low) branches.push(`${digits.slice(0, i)}[${low}-${d - 1}]${tail}`);
  }
  branches.push(digits);
  return `(?:${branches.join('|')})`;
}
