/**
 * Prisma maps `BigInt @id @default(autoincrement())` on SQLite to `"id" BIGINT NOT NULL PRIMARY KEY`,
 * which is not an alias of the rowid, so inserts without an id fail with a NOT NULL violation
 * (prisma/orm#13178, #20449). SQLite integers are 64-bit whatever the declared type, so the fix
 * is to declare those columns `INTEGER PRIMARY KEY AUTOINCREMENT`: a rowid alias, and AUTOINCREMENT
 * never reuses an id (like a PostgreSQL sequence; decisions §3.5). Every single-column BIGINT
 * primary key is rewritten: in this schema all of them are autoincrement ids (models.prisma).
 * Table redefinitions (`CREATE TABLE "new_x"`) are rewritten the same way.
 */
export function rewriteSqliteMigration(sql: string): string {
  return sql.replace(
    /^(\s*"[^"]+") BIGINT NOT NULL PRIMARY KEY(?! AUTOINCREMENT)(?=,?$)/gm,
    '$1 INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT',
  );
}
