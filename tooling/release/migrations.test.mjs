// decisions §12.8: "never breaking the code of the previous release: expand, then contract one
// release later". Every migration after the last release is checked: while it is applied the
// previous release's API and sender run on the same database (the rolling upgrade), and a rollback
// runs that release on the migrated schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrationProblems, migrationSql, PROVIDERS, unreleasedMigrations } from './index.mjs';

describe('migrations after the last release keep the previous release working', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: every unreleased migration only adds, or says why it is compatible`, () => {
      for (const name of unreleasedMigrations(provider)) {
        assert.deepEqual(migrationProblems(migrationSql(provider, name)), [], `${provider} ${name}`);
      }
    });
  }

  it('would have refused released migrations that were not additive (checked only up to their release)', () => {
    // 1.0.0's history: the column dropped from platform_clock, SQLite's table rebuilds.
    const clock = migrationProblems(migrationSql('postgresql', '20261124100247_manual_clock_instant'));
    assert.ok(
      clock.some((p) => p.startsWith('drops a column')),
      clock.join('\n'),
    );
    assert.ok(
      clock.some((p) => p.startsWith('makes a column required')),
      clock.join('\n'),
    );
    const rebuilt = migrationProblems(migrationSql('sqlite', '20261124115541_token_reminder_retries'));
    assert.ok(
      rebuilt.some((p) => p.startsWith('drops a table')),
      rebuilt.join('\n'),
    );
    assert.ok(
      rebuilt.some((p) => p.startsWith('renames')),
      rebuilt.join('\n'),
    );
  });
});

describe('migrationProblems', () => {
  const refused = (sql, start) => {
    const problems = migrationProblems(sql);
    assert.ok(
      problems.some((p) => p.startsWith(start)),
      `${sql} -> ${JSON.stringify(problems)}`,
    );
  };
  const accepted = (sql) => assert.deepEqual(migrationProblems(sql), [], sql);

  it('accepts what only adds', () => {
    accepted('-- AlterTable\nALTER TABLE "idempotency_keys" ADD COLUMN "sealed" BYTEA;');
    accepted('CREATE TABLE "t" ("a" TEXT NOT NULL, CONSTRAINT "t_pkey" PRIMARY KEY ("a"));\nCREATE UNIQUE INDEX "t_a_key" ON "t"("a");');
    accepted('ALTER TABLE "t2" ADD CONSTRAINT "t2_s_fkey" FOREIGN KEY ("s") REFERENCES "stores"("id");\nCREATE TABLE "t2" ("s" BIGINT);');
    accepted('ALTER TABLE "stores" ADD COLUMN "n" INTEGER NOT NULL DEFAULT 0;');
    accepted('CREATE INDEX "stores_n_idx" ON "stores"("n");\nDROP INDEX "stores_old_idx";');
    accepted('DO $$ BEGIN\nINSERT INTO platform_clock VALUES (1)\\003B\nEND $$;');
    // a SQLite trigger: its END closes the body, not a transaction
    accepted(
      'CREATE TRIGGER "t_ins" AFTER INSERT ON "t" BEGIN\n  UPDATE "c" SET "n" = "n" + 1;\nEND;\nCREATE INDEX "t_n_idx" ON "t"("n");',
    );
  });

  it('refuses what the previous release would trip on', () => {
    refused('DROP TABLE "stores";', 'drops a table');
    refused('ALTER TABLE "stores" DROP COLUMN "name";', 'drops a column');
    refused('ALTER TABLE "stores" RENAME COLUMN "name" TO "title";', 'renames');
    refused('ALTER TABLE "stores" RENAME TO "shops";', 'renames');
    refused('ALTER TABLE "stores" ALTER COLUMN "name" SET DATA TYPE VARCHAR(20);', "changes a column's type");
    refused('ALTER TABLE "stores" ALTER COLUMN "name" TYPE VARCHAR(20);', "changes a column's type");
    refused('ALTER TABLE "stores" ALTER COLUMN "name" SET NOT NULL;', 'makes a column required');
    refused('ALTER TABLE "stores" ADD COLUMN "n" INTEGER NOT NULL;', 'adds a required column without a default');
    refused('ALTER TABLE "stores" ADD CONSTRAINT "c" CHECK (length(name) < 9);', 'adds a constraint');
    refused('CREATE UNIQUE INDEX "stores_name_key" ON "stores"("name");', 'adds a unique index');
    refused('DROP INDEX "webhook_deliveries_webhook_id_key";', 'drops a unique index');
    refused('DROP FUNCTION "webhook_lease_counts_on_update"();', 'drops what the previous release may use');
    refused('CREATE INDEX CONCURRENTLY "x_idx" ON "stores"("name");', 'cannot run inside the transaction');
    refused('BEGIN;\nALTER TABLE "stores" ADD COLUMN "n" TEXT;\nCOMMIT;', 'ends or starts a transaction');
    refused('CREATE TRIGGER "t_ins" AFTER INSERT ON "t" BEGIN\n  UPDATE "c" SET "n" = 1;\nEND;\nCOMMIT;', 'ends or starts a transaction');
    refused('CREATE TRIGGER "t_ins" AFTER INSERT ON "t" BEGIN\n  DROP TABLE "stores";\nEND;', 'drops a table');
    // inside a DO body, where semicolons are spelled \003B
    refused('DO U&\'\nBEGIN\nALTER TABLE "stores" DROP COLUMN "name"\\003B\nEND\n\';', 'drops a column');
  });

  it('ignores comments, and takes a -- compatible: line with its reason', () => {
    accepted('-- we do not DROP TABLE "stores" here\nALTER TABLE "stores" ADD COLUMN "x" TEXT;');
    accepted('-- compatible: drops stores.legacy_note, unused since 1.0.0\nALTER TABLE "stores" DROP COLUMN "legacy_note";');
    refused('-- compatible:\nALTER TABLE "stores" DROP COLUMN "legacy_note";', 'drops a column');
  });
});
