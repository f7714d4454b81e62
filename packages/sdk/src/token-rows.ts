import type { StoredToken } from './token-store';

/** A token as the SQL stores keep it: one row per store handle, times as the service wrote them. */
export interface TokenRow {
  handle: string;
  access_token: string;
  expires_at: string;
  scope: string;
}

export const tokenFromRow = (row: TokenRow): StoredToken => ({
  handle: row.handle,
  accessToken: row.access_token,
  expiresAt: row.expires_at,
  scope: row.scope,
});

/** A table name the stores can put into SQL as it is (optionally schema-qualified): nothing to quote. */
export function checkTableName(store: string, table: string, qualified = false): string {
  const pattern = qualified ? /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/ : /^[A-Za-z_][A-Za-z0-9_]*$/;
  if (!pattern.test(table)) throw new TypeError(`${store}: not a table name: ${table}`);
  return table;
}
