package dev.relayer.codegen;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.PostgresServer;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.jooq.codegen.GenerationTool;
import org.jooq.meta.jaxb.Configuration;
import org.jooq.meta.jaxb.Database;
import org.jooq.meta.jaxb.Generate;
import org.jooq.meta.jaxb.Generator;
import org.jooq.meta.jaxb.Jdbc;
import org.jooq.meta.jaxb.SchemaMappingType;
import org.jooq.meta.jaxb.Target;

/**
 * Build-time step of {@code relayer-jooq-generated}: applies the Liquibase changelog to a unique
 * scratch schema on the {@linkplain TestPostgres test PostgreSQL}, generates jOOQ classes from it
 * under the stable schema name {@value #OUTPUT_SCHEMA} with the default table prefix, and drops the
 * scratch schema, whatever happens.
 *
 * <p>Arguments: the target directory and the target package.
 */
public final class GenerateJooqClasses {

  /** The schema name the generated classes carry; the store maps it to the configured schema. */
  public static final String OUTPUT_SCHEMA = "relayer";

  /** Held so that the level set in {@link #main} sticks: JUL keeps loggers weakly. */
  private static final java.util.logging.Logger LIQUIBASE_LOG =
      java.util.logging.Logger.getLogger("liquibase");

  private GenerateJooqClasses() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: GenerateJooqClasses <target-dir> <package>");
    }
    // Liquibase logs every step at INFO through java.util.logging; the build needs only problems.
    LIQUIBASE_LOG.setLevel(java.util.logging.Level.WARNING);
    PostgresServer server = TestPostgres.server();
    try {
      String scratch = "relayer_codegen_" + UUID.randomUUID().toString().replace("-", "");
      execute(server, "CREATE SCHEMA " + scratch);
      try {
        RelayerSchemaInstaller.applyChangelog(
            server.adminDataSource(),
            SchemaOptions.of(scratch, SchemaOptions.DEFAULT_PREFIX),
            scratch);
        GenerationTool.generate(configuration(server, scratch, args[0], args[1]));
      } finally {
        execute(server, "DROP SCHEMA IF EXISTS " + scratch + " CASCADE");
      }
    } finally {
      // The build's JVM lives on after this class loader is gone: stop an embedded server now.
      TestPostgres.stop();
    }
  }

  private static Configuration configuration(
      PostgresServer server, String scratch, String directory, String packageName) {
    Jdbc jdbc =
        new Jdbc()
            .withDriver("org.postgresql.Driver")
            .withUrl(server.adminUrl())
            .withUser(server.user());
    if (server.password() != null) {
      jdbc.setPassword(server.password());
    }
    return new Configuration()
        .withJdbc(jdbc)
        .withGenerator(
            new Generator()
                .withDatabase(
                    new Database()
                        .withName("org.jooq.meta.postgres.PostgresDatabase")
                        .withSchemata(
                            new SchemaMappingType()
                                .withInputSchema(scratch)
                                .withOutputSchema(OUTPUT_SCHEMA))
                        .withExcludes("databasechangelog|databasechangeloglock")
                        .withIncludeSequences(false)
                        .withIncludeRoutines(false))
                .withGenerate(
                    new Generate()
                        .withRecords(true)
                        .withPojos(false)
                        .withDaos(false)
                        .withJavaTimeTypes(true)
                        .withGlobalObjectReferences(true)
                        .withComments(true))
                .withTarget(new Target().withPackageName(packageName).withDirectory(directory)));
  }

  private static void execute(PostgresServer server, String sql) throws SQLException {
    try (Connection connection = server.connectAdmin();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
