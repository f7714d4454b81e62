// decisions §6.1, §6.4: query parameters of every paginated read. Messages carry the parameter name
// because they become the whole 400 body.

export type ParamResult<T> = { ok: true; value: T } | { ok: false; message: string };

const DIGITS = /^[0-9]+$/;
/** decisions §3.5: ids are 64-bit integers. */
export const MAX_ID = 9223372036854775807n;
/** decisions §6.1: the largest page. */
export const LIMIT_MAX = 1000;

/** decisions §6.1: plain decimal digits in 1..max; absent means `def`, present but empty is refused. */
export function parseLimit(
  raw: string | undefined,
  { def = 50, max = LIMIT_MAX }: { def?: number; max?: number } = {},
): ParamResult<number> {
  if (raw === undefined) return { ok: true, value: def };
  const value = DIGITS.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 1 && value <= max)) return { ok: false, message: `limit: must be an integer between 1 and ${max}` };
  return { ok: true, value };
}

/** decisions §3.5: ids are non-negative 64-bit integers; the value is returned without leading zeros. */
export function parseSinceId(raw: string | undefined): ParamResult<string> {
  if (raw === undefined) return { ok: true, value: '0' };
  const invalid = { ok: false as const, message: 'since_id: must be a non-negative integer' };
  if (!DIGITS.test(raw)) return invalid;
  const value = raw.replace(/^0+(?=[0-9])/, '');
  if (value.length > 19 || BigInt(value) > MAX_ID) return { ok: false, message: `since_id: must be at most ${MAX_ID} (ids are 64-bit)` };
  return { ok: true, value };
}

/** decisions §6.4: the requested top-level fields, `id` first and always present; undefined means all. */
export function parseFields(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const fields = new Set(
    raw
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== ''),
  );
  if (fields.size === 0) return undefined;
  fields.delete('id');
  return ['id', ...fields];
}
