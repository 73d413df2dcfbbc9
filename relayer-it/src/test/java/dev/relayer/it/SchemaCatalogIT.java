package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The SQL script and the Liquibase changelog create the same catalog: one database gets every
 * install by script, another every install by changelog, and their catalogs are compared schema by
 * schema.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemaCatalogIT {

  private TestDatabase scriptDb;
  private TestDatabase changelogDb;

  static Stream<SchemaOptions> installs() {
    return Stream.of(
        SchemaOptions.defaults(),
        SchemaOptions.of("my\"Schema X", "Ü-x_"),
        SchemaOptions.of("messaging", ""));
  }

  @BeforeAll
  void installEverySchemaBothWays() {
    scriptDb = TestDatabase.create();
    changelogDb = TestDatabase.create();
    installs()
        .forEach(
            options -> {
              RelayerSchemaInstaller.applyScript(scriptDb.dataSource(), options);
              RelayerSchemaInstaller.applyChangelog(changelogDb.dataSource(), options);
            });
  }

  @AfterAll
  void dropDatabases() {
    if (changelogDb != null) {
      changelogDb.close();
    }
    if (scriptDb != null) {
      scriptDb.close();
    }
  }

  @ParameterizedTest
  @MethodSource("installs")
  void scriptAndChangelogCreateTheSameCatalog(SchemaOptions options) throws SQLException {
    CatalogSnapshot byScript = snapshot(scriptDb, options);
    CatalogSnapshot byChangelog = snapshot(changelogDb, options);

    assertThat(byChangelog.relations()).containsExactlyElementsOf(byScript.relations());
    assertThat(byChangelog.columns()).containsExactlyElementsOf(byScript.columns());
    assertThat(byChangelog.constraints()).containsExactlyElementsOf(byScript.constraints());
    assertThat(byChangelog.indexes()).containsExactlyElementsOf(byScript.indexes());
    assertThat(byChangelog.sequences()).containsExactlyElementsOf(byScript.sequences());
  }

  @ParameterizedTest
  @MethodSource("installs")
  void catalogHasEveryTableColumnConstraintAndIndexOfTheDesign(SchemaOptions options)
      throws SQLException {
    String p = options.tablePrefix();
    CatalogSnapshot catalog = snapshot(changelogDb, options);

    assertThat(catalog.relations())
        .containsExactlyInAnyOrder(
            p + "idempotency_keys | r | p",
            p + "idempotency_keys_at_idx | i | p",
            p + "idempotency_keys_pkey | i | p",
            p + "inbox | r | p",
            p + "inbox_pkey | i | p",
            p + "inbox_processed_at_idx | i | p",
            p + "leases | r | p",
            p + "leases_pkey | i | p",
            p + "operations | r | p",
            p + "operations_at_idx | i | p",
            p + "operations_id_seq | S | p",
            p + "operations_pkey | i | p",
            p + "outbox | r | p",
            p + "outbox_dead | r | p",
            p + "outbox_dead_failed_at_idx | i | p",
            p + "outbox_dead_pkey | i | p",
            p + "outbox_deliver_at_idx | i | p",
            p + "outbox_id_seq | S | p",
            p + "outbox_lane_key_idx | i | p",
            p + "outbox_parked_idx | i | p",
            p + "outbox_pending_idx | i | p",
            p + "outbox_pkey | i | p");

    assertThat(catalog.columns())
        .contains(
            p + "outbox | 1 | id | bigint | t | a |  | null",
            p + "outbox | 2 | message_id | uuid | t |  |  | null",
            p + "outbox | 6 | headers | jsonb | t |  |  | '{}'::jsonb",
            p + "outbox | 8 | created_at | timestamp with time zone | t |  |  | now()",
            p + "outbox | 10 | lane | integer | f |  |  | null",
            p + "outbox | 13 | attempts | integer | t |  |  | 0",
            p + "outbox | 15 | status | text | t |  |  | 'pending'::text",
            p + "outbox | 16 | claim_token | uuid | f |  |  | null",
            p + "outbox | 18 | parked_at | timestamp with time zone | f |  |  | null",
            p + "outbox_dead | 1 | id | bigint | t |  |  | null",
            p + "outbox_dead | 15 | failed_at | timestamp with time zone | t |  |  | null",
            p + "outbox_dead | 17 | error_fingerprint | text | f |  |  | null",
            p + "inbox | 3 | processed_at | timestamp with time zone | t |  |  | now()",
            p + "leases | 3 | expires_at | timestamp with time zone | t |  |  | null",
            p + "operations | 1 | id | bigint | t | a |  | null",
            p + "operations | 2 | at | timestamp with time zone | t |  |  | now()",
            p + "operations | 3 | operator | text | t |  |  | null",
            p + "operations | 4 | operation | text | t |  |  | null",
            p + "operations | 5 | filter | jsonb | t |  |  | '{}'::jsonb",
            p + "operations | 6 | rows | bigint | t |  |  | null",
            p + "idempotency_keys | 1 | idempotency_key | text | t |  |  | null",
            p + "idempotency_keys | 2 | message_id | uuid | t |  |  | null",
            p + "idempotency_keys | 3 | created_at | timestamp with time zone | t |  |  | now()");
    assertThat(catalog.columns()).filteredOn(c -> c.startsWith(p + "outbox | ")).hasSize(18);
    assertThat(catalog.columns()).filteredOn(c -> c.startsWith(p + "outbox_dead | ")).hasSize(17);
    assertThat(catalog.columns()).filteredOn(c -> c.startsWith(p + "inbox | ")).hasSize(3);
    assertThat(catalog.columns()).filteredOn(c -> c.startsWith(p + "leases | ")).hasSize(3);
    assertThat(catalog.columns()).filteredOn(c -> c.startsWith(p + "operations | ")).hasSize(6);
    assertThat(catalog.columns())
        .filteredOn(c -> c.startsWith(p + "idempotency_keys | "))
        .hasSize(3);

    List<String> checks =
        catalog.constraints().stream().filter(c -> c.contains(" | c | ")).toList();
    assertThat(checks).hasSize(12 + 5 + 1 + 4 + 2);
    assertThat(catalog.constraints())
        .contains(
            p
                + "outbox | "
                + p
                + "outbox_claim_check | c | t | f"
                + " | CHECK (((claim_token IS NULL) = (claim_expires_at IS NULL)))",
            p
                + "outbox | "
                + p
                + "outbox_status_check | c | t | f"
                + " | CHECK ((status = ANY (ARRAY['pending'::text, 'parked'::text])))",
            p
                + "outbox | "
                + p
                + "outbox_message_id_check | c | t | f"
                + " | CHECK ((message_id <> '00000000-0000-0000-0000-000000000000'::uuid))",
            p + "inbox | " + p + "inbox_pkey | p | t | f | PRIMARY KEY (consumer, message_id)",
            p + "leases | " + p + "leases_pkey | p | t | f | PRIMARY KEY (name)",
            p
                + "idempotency_keys | "
                + p
                + "idempotency_keys_pkey | p | t | f | PRIMARY KEY (idempotency_key)",
            p
                + "idempotency_keys | "
                + p
                + "idempotency_keys_key_check | c | t | f"
                + " | CHECK (((idempotency_key <> ''::text)"
                + " AND (char_length(idempotency_key) <= 255)))");

    String table = "<schema>." + quoteIdent(p + "outbox");
    assertThat(catalog.indexes())
        .contains(
            p
                + "outbox_pending_idx | "
                + p
                + "outbox | f | f | CREATE INDEX "
                + quoteIdent(p + "outbox_pending_idx")
                + " ON "
                + table
                + " USING btree (lane, id) WHERE (status = 'pending'::text)",
            p
                + "outbox_deliver_at_idx | "
                + p
                + "outbox | f | f | CREATE INDEX "
                + quoteIdent(p + "outbox_deliver_at_idx")
                + " ON "
                + table
                + " USING btree (deliver_at) WHERE (deliver_at IS NOT NULL)",
            p
                + "outbox_parked_idx | "
                + p
                + "outbox | f | f | CREATE INDEX "
                + quoteIdent(p + "outbox_parked_idx")
                + " ON "
                + table
                + " USING btree (lane, ordering_key) WHERE (status = 'parked'::text)",
            p
                + "outbox_lane_key_idx | "
                + p
                + "outbox | f | f | CREATE INDEX "
                + quoteIdent(p + "outbox_lane_key_idx")
                + " ON "
                + table
                + " USING btree (lane, ordering_key, id)"
                + " WHERE ((status = 'pending'::text) AND (ordering_key IS NOT NULL))",
            p
                + "idempotency_keys_at_idx | "
                + p
                + "idempotency_keys | f | f | CREATE INDEX "
                + quoteIdent(p + "idempotency_keys_at_idx")
                + " ON <schema>."
                + quoteIdent(p + "idempotency_keys")
                + " USING btree (created_at)");
    assertThat(catalog.sequences())
        .containsExactly(
            p + "operations_id_seq | bigint | 1 | 1 | 1 | 9223372036854775807 | f",
            p + "outbox_id_seq | bigint | 1 | 1 | 1 | 9223372036854775807 | f");
  }

  private static CatalogSnapshot snapshot(TestDatabase db, SchemaOptions options)
      throws SQLException {
    try (Connection connection = db.connect()) {
      return CatalogSnapshot.of(connection, options.schema());
    }
  }

  /** PostgreSQL's quote_ident for the names used here: quotes unless plain lower case. */
  private static String quoteIdent(String name) {
    return name.matches("[a-z_][a-z0-9_]*") ? name : '"' + name.replace("\"", "\"\"") + '"';
  }
}
