package dev.relayer.testkit;

import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.changelog.FastCheckService;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.jspecify.annotations.Nullable;

/**
 * Creates Relayer's tables in a test database, by the SQL script or by the Liquibase changelog —
 * the two ways a deployment pipeline does it.
 */
public final class RelayerSchemaInstaller {

  /** Classpath location of Relayer's Liquibase changelog. */
  public static final String CHANGELOG = "db/changelog/relayer/db.changelog-relayer.xml";

  private RelayerSchemaInstaller() {}

  /** Runs {@link PostgreSqlOutboxSchema#createScript} in one transaction. */
  public static void applyScript(DataSource dataSource, SchemaOptions options) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      statement.execute(PostgreSqlOutboxSchema.createScript(options));
      connection.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("Could not apply the Relayer script for " + options, e);
    }
  }

  /**
   * Runs the statements of schema steps 1 to {@code version} ({@link
   * PostgreSqlOutboxSchema#stepStatements}) in one transaction: with {@code 1}, an install as the
   * first version of Relayer created it.
   */
  public static void applyVersion(DataSource dataSource, SchemaOptions options, int version) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      for (int step = 1; step <= version; step++) {
        for (String sql : PostgreSqlOutboxSchema.stepStatements(options, step)) {
          statement.execute(sql);
        }
      }
      connection.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Could not apply Relayer schema version " + version + " for " + options, e);
    }
  }

  /**
   * Applies the changelog with the parameters {@code relayer.schema} and {@code relayer.prefix}
   * taken from {@code options}; Liquibase keeps its own tables in the connection's default schema.
   */
  public static void applyChangelog(DataSource dataSource, SchemaOptions options) {
    applyChangelog(dataSource, options, null);
  }

  /**
   * Applies the changelog, keeping Liquibase's own tables in {@code liquibaseSchema} (which must
   * exist), or in the connection's default schema when {@code null}.
   */
  public static void applyChangelog(
      DataSource dataSource, SchemaOptions options, @Nullable String liquibaseSchema) {
    applyChangelog(dataSource, options, liquibaseSchema, 0);
  }

  /**
   * Applies only the first {@code changesets} changesets of the changelog that have not run yet
   * (all of them when {@code 0}): with {@code 1} on a new database, an install as the first version
   * of Relayer's changelog created it. Liquibase's tables go to the connection's default schema.
   */
  public static void applyChangelog(DataSource dataSource, SchemaOptions options, int changesets) {
    applyChangelog(dataSource, options, null, changesets);
  }

  private static void applyChangelog(
      DataSource dataSource,
      SchemaOptions options,
      @Nullable String liquibaseSchema,
      int changesets) {
    disableLiquibaseAnalytics();
    try (Connection connection = dataSource.getConnection()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      if (liquibaseSchema != null) {
        database.setLiquibaseSchemaName(liquibaseSchema);
      }
      forgetUpToDateChecks();
      try (Liquibase liquibase =
          new Liquibase(CHANGELOG, new ClassLoaderResourceAccessor(), database)) {
        liquibase.setChangeLogParameter("relayer.schema", options.schema());
        liquibase.setChangeLogParameter("relayer.prefix", options.tablePrefix());
        if (changesets > 0) {
          liquibase.update(changesets, new Contexts(), new LabelExpression());
        } else {
          liquibase.update(new Contexts(), new LabelExpression());
        }
      }
    } catch (SQLException | LiquibaseException e) {
      throw new IllegalStateException("Could not apply the Relayer changelog for " + options, e);
    } catch (Exception e) {
      throw new IllegalStateException("Could not close Liquibase after applying " + options, e);
    }
  }

  /**
   * Liquibase remembers, per JVM, that a database was up to date with a changelog, keyed by URL,
   * default schema, contexts, labels and changelog path, but not by changelog parameters. After an
   * install that was already up to date, an update for another schema or prefix in the same JVM
   * would be skipped without a word. Clearing that memory before each update makes every install
   * check DATABASECHANGELOG for itself.
   */
  static void forgetUpToDateChecks() {
    Scope.getCurrentScope().getSingleton(FastCheckService.class).clearCache();
  }

  /** Liquibase 4.30+ sends usage analytics unless told not to; tests never call out. */
  static void disableLiquibaseAnalytics() {
    if (System.getProperty("liquibase.analytics.enabled") == null) {
      System.setProperty("liquibase.analytics.enabled", "false");
    }
  }
}
