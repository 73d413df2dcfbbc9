package dev.relayer.codegen;

import dev.relayer.schema.Identifiers;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The database jOOQ's code generator reads: a fresh database on the {@linkplain
 * dev.relayer.testkit.TestPostgres test PostgreSQL} with Relayer's Liquibase changelog applied in
 * one schema, with the default table prefix. Liquibase keeps its own tables in that schema too (the
 * generator's configuration excludes them).
 */
public final class CodegenDatabase {

  private CodegenDatabase() {}

  /**
   * Creates the database and applies the changelog in {@code schema}; the caller drops it by
   * closing the result.
   */
  public static TestDatabase create(String schema) {
    SchemaOptions options = SchemaOptions.of(schema, SchemaOptions.DEFAULT_PREFIX);
    TestDatabase database = TestDatabase.create();
    try {
      try (Connection connection = database.connect();
          Statement statement = connection.createStatement()) {
        statement.execute("CREATE SCHEMA " + Identifiers.quote(schema));
      }
      RelayerSchemaInstaller.applyChangelog(database.dataSource(), options, schema);
      return database;
    } catch (SQLException | RuntimeException e) {
      try {
        database.close();
      } catch (RuntimeException dropFailed) {
        e.addSuppressed(dropFailed);
      }
      throw new IllegalStateException(
          "Could not apply the changelog to " + database.name() + " for code generation", e);
    }
  }
}
