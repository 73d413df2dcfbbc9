package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Relayer's changelog applied by the oldest Liquibase the README names (the build copies its jar to
 * {@code relayer.liquibase.oldest.dir}), through Liquibase's command line in a child JVM whose
 * class path is the test class path with that Liquibase in place of the build's.
 */
class LiquibaseOldestVersionIT {

  private static final String OLDEST = System.getProperty("relayer.liquibase.oldest.version");
  private TestDatabase db;

  @BeforeEach
  void createDatabase() {
    db = TestDatabase.create();
  }

  @AfterEach
  void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void theOldestNamedLiquibaseAppliesTheChangelogAndReappliesItAsANoOp() throws Exception {
    String classPath = classPathWithOldestLiquibase();
    String[] parameters = {"-Drelayer.schema=messaging", "-Drelayer.prefix=orders_"};

    LiquibaseCli.Result first =
        LiquibaseCli.update(classPath, db, RelayerSchemaInstaller.CHANGELOG, List.of(), parameters);
    LiquibaseCli.Result second =
        LiquibaseCli.update(classPath, db, RelayerSchemaInstaller.CHANGELOG, List.of(), parameters);

    assertThat(first.exitCode()).as(first.output()).isZero();
    assertThat(second.exitCode()).as(second.output()).isZero();
    assertThat(
            Jdbc.rows(
                db.dataSource(),
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'messaging'"
                    + " ORDER BY table_name"))
        .containsExactly(
            "orders_idempotency_keys",
            "orders_inbox",
            "orders_leases",
            "orders_operations",
            "orders_outbox",
            "orders_outbox_dead");
    assertThat(Jdbc.rows(db.dataSource(), "SELECT id, liquibase FROM databasechangelog"))
        .as("four changesets, each applied once, by Liquibase " + OLDEST)
        .hasSize(4)
        .allSatisfy(row -> assertThat(row).contains("schema=messaging prefix=orders_", OLDEST));
  }

  private static String classPathWithOldestLiquibase() throws Exception {
    Path dir = Path.of(System.getProperty("relayer.liquibase.oldest.dir"));
    List<String> entries = new ArrayList<>();
    try (Stream<Path> jars = Files.list(dir)) {
      jars.map(Path::toString).sorted().forEach(entries::add);
    }
    assertThat(entries).anyMatch(jar -> jar.endsWith("liquibase-core-" + OLDEST + ".jar"));
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator, -1)) {
      if (!Path.of(entry).getFileName().toString().startsWith("liquibase-core-")) {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }
}
