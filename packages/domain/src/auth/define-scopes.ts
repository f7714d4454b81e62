// decisions §5.5: the access scopes; a write scope implies its read scope.
export const SCOPES = [
  'read_products',
  'write_products',
  'read_inventory',
  'write_inventory',
  'read_fulfillments',
  'write_fulfillments',
  'read_metafields',
  'write_metafields',
  'read_store_information',
] as const;

export type Scope = (typeof SCOPES)[number];

export type ScopeListResult = { ok: true; value: Scope[] } | { ok: false; message: string };

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

export function isScope(s: unknown): s is Scope {
  return typeof s === 'string' && SCOPE_SET.has(s);
}

/** The read scope a write scope implies, if any. */
function impliedRead(scope: Scope): Scope | undefined {
  if (!scope.startsWith('write_')) return undefined;
  const read = `read_${scope.slice('write_'.length)}`;
  return isScope(read) ? read : undefined;
}

/** The granted scopes plus the read scopes their write scopes imply; unknown names are dropped. */
export function expandScopes(granted: readonly string[]): Set<Scope> {
  const out = new Set<Scope>();
  for (const s of granted) {
    if (!isScope(s)) continue;
    out.add(s);
    const read = impliedRead(s);
    if (read !== undefined) out.add(read);
  }
  return out;
}

export function hasScope(granted: readonly string[], needed: Scope): boolean {
  return expandScopes(granted).has(needed);
}

/**
 * An array of scope names or a comma-separated string (as OAuth's `scope=a,b`); entries trimmed,
 * empty ones dropped, duplicates removed in first-seen order. The message has no field name.
 */
export function parseScopeList(input: unknown): ScopeListResult {
  let names: string[];
  if (typeof input === 'string') {
    names = input.split(',');
  } else if (Array.isArray(input) && input.every((s) => typeof s === 'string')) {
    names = input as string[];
  } else {
    return { ok: false, message: 'must be an array of scope names or a comma-separated string' };
  }
  const trimmed = names.map((s) => s.trim()).filter((s) => s !== '');
  const unknown = [...new Set(trimmed.filter((s) => !isScope(s)))];
  if (unknown.length > 0) {
    const quoted = unknown.map((s) => `'${s}'`).join(', ');
    return {
      ok: false,
      message: `${unknown.length === 1 ? 'has an unknown scope' : 'has unknown scopes'} ${quoted} (known scopes: ${SCOPES.join(', ')})`,
    };
  }
  return { ok: true, value: [...new Set(trimmed as Scope[])] };
}

/**
 * decisions §5.2: the granted scopes, comma-joined in the given order, without read scopes that a
 * granted write scope implies, so clients comparing scope sets see what they asked for.
 */
export function minimalScopeString(scopes: readonly string[]): string {
  const granted = new Set(scopes);
  const implied = new Set<string>();
  for (const s of granted) {
    if (!isScope(s)) continue;
    const read = impliedRead(s);
    if (read !== undefined) implied.add(read);
  }
  return [...granted].filter((s) => !implied.has(s)).join(',');
}
