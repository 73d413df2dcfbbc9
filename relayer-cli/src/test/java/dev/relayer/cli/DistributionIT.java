package dev.relayer.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The installable command as a user installs it: the build's {@code relayer-cli-<version>-dist}
 * archive unpacked into an empty directory outside the checkout, run through its {@code
 * bin/relayer} with nothing but Java and the environment variables an operator sets once.
 */
class DistributionIT {

  private static final Path TARGET = Path.of("target");

  @TempDir Path install;
  @TempDir Path elsewhere;
  TestDatabase db;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private record Run(int exitCode, String out, String err) {}

  @Test
  void theZipAndTheTarballHoldTheScriptsTheLibrariesAndTheLicence() throws Exception {
    Set<String> zipped = new TreeSet<>();
    try (InputStream in = Files.newInputStream(archive(".zip"));
        ZipInputStream zip = new ZipInputStream(in)) {
      for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
        if (!e.isDirectory()) {
          zipped.add(e.getName().substring(e.getName().indexOf('/') + 1));
        }
      }
    }
    assertThat(zipped)
        .contains("bin/relayer", "bin/relayer.cmd", "LICENSE", "NOTICE")
        .anyMatch(name -> name.matches("lib/relayer-cli-[^/]+\\.jar"))
        .anyMatch(name -> name.matches("lib/postgresql-[^/]+\\.jar"))
        .anyMatch(name -> name.matches("lib/picocli-[^/]+\\.jar"));

    Path home = unpack();
    Set<String> unpacked = new TreeSet<>();
    try (Stream<Path> files = Files.walk(home)) {
      files
          .filter(Files::isRegularFile)
          .forEach(f -> unpacked.add(home.relativize(f).toString().replace('\\', '/')));
    }
    assertThat(unpacked).as("the tarball holds what the zip holds").isEqualTo(zipped);
    assertThat(Files.getPosixFilePermissions(home.resolve("bin/relayer")))
        .contains(PosixFilePermission.OWNER_EXECUTE);
  }

  @Test
  void theUnpackedCommandPrintsItsVersionAndTheSchemaScriptWithoutACheckout() throws Exception {
    Path relayer = unpack().resolve("bin/relayer");

    Run version = run(relayer, Map.of(), "--version");
    assertThat(version.exitCode()).as(version.err()).isZero();
    assertThat(version.out()).matches("relayer \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R");

    Run script =
        run(
            relayer,
            Map.of("RELAYER_SCHEMA", "messaging", "RELAYER_PREFIX", "orders_"),
            "db",
            "script",
            "--provider",
            "postgres");
    assertThat(script.exitCode()).as(script.err()).isZero();
    assertThat(script.out())
        .as("schema and prefix taken from RELAYER_SCHEMA and RELAYER_PREFIX")
        .contains("\"messaging\".\"orders_outbox\"")
        .doesNotContain("relayer_outbox");

    Run flags =
        run(
            relayer,
            Map.of("RELAYER_SCHEMA", "messaging", "RELAYER_PREFIX", "orders_"),
            "db",
            "script",
            "--provider",
            "postgres",
            "--schema",
            "billing",
            "--prefix",
            "");
    assertThat(flags.exitCode()).as(flags.err()).isZero();
    assertThat(flags.out())
        .as("a flag wins over the environment; an empty prefix is no prefix")
        .contains("\"billing\".\"outbox\"")
        .doesNotContain("orders_outbox");
  }

  @Test
  void theUnpackedCommandReportsStatusFromTheEnvironmentAlone() throws Exception {
    Path relayer = unpack().resolve("bin/relayer");
    Map<String, String> env =
        Map.of("RELAYER_URL", url(), "RELAYER_SCHEMA", "messaging", "RELAYER_PREFIX", "orders_");

    Run script = run(relayer, env, "db", "script", "--provider", "postgres");
    assertThat(script.exitCode()).as(script.err()).isZero();
    try (Connection connection = db.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(script.out());
    }
    RelayerStore store =
        RelayerStore.create(StoreOptions.of(SchemaOptions.of("messaging", "orders_")));
    store.enqueue(
        DSL.using(db.dataSource(), SQLDialect.POSTGRES),
        NewMessage.builder()
            .transport("rabbitmq")
            .destination("orders")
            .messageType("OrderPlaced")
            .body("{}".getBytes(UTF_8))
            .build());

    Run status = run(relayer, env, "status");
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out())
        .contains("\"messaging\".\"orders_outbox\"")
        .contains("\"messaging\".\"orders_inbox\" live=0 dead=0");
    assertThat(status.out() + status.err())
        .as("the password is never printed")
        .doesNotContain("password=" + password());

    Run verify = run(relayer, env, "db", "verify");
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
  }

  /** The build's archive of the given extension: exactly one. */
  private static Path archive(String extension) throws IOException {
    List<Path> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(TARGET)) {
      files
          .filter(
              f -> f.getFileName().toString().matches("relayer-cli-.+-dist\\Q" + extension + "\\E"))
          .forEach(found::add);
    }
    assertThat(found)
        .as("relayer-cli-*-dist%s in target/ (mvn package builds it)", extension)
        .hasSize(1);
    return found.get(0).toAbsolutePath();
  }

  /** Unpacks the tarball with the system's tar into an empty directory; the distribution's home. */
  private Path unpack() throws Exception {
    Process tar =
        new ProcessBuilder("tar", "-xzf", archive(".tar.gz").toString(), "-C", install.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(tar.getInputStream().readAllBytes(), UTF_8);
    assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tar.exitValue()).as(output).isZero();
    try (Stream<Path> dirs = Files.list(install)) {
      List<Path> homes = dirs.toList();
      assertThat(homes).as("one top directory, relayer-<version>").hasSize(1);
      assertThat(homes.get(0).getFileName().toString()).startsWith("relayer-");
      return homes.get(0);
    }
  }

  /**
   * Runs the unpacked {@code bin/relayer} from a directory outside the checkout, with an
   * environment that has Java (JAVA_HOME) and {@code env}, and no RELAYER_ or PG variables of the
   * build's.
   */
  private Run run(Path relayer, Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(relayer.toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(elsewhere.toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("PG") || k.startsWith("RELAYER_"));
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    builder.environment().putAll(env);
    Path out = elsewhere.resolve("out.txt");
    Path err = elsewhere.resolve("err.txt");
    builder.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process process = builder.start();
    process.getOutputStream().close();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("relayer %s ended", command).isTrue();
    return new Run(process.exitValue(), Files.readString(out, UTF_8), Files.readString(err, UTF_8));
  }

  private String password() {
    return db.password() == null ? "not-a-secret" : db.password();
  }

  private String url() {
    String url = db.jdbcUrl();
    return url
        + (url.contains("?") ? "&" : "?")
        + "user="
        + URLEncoder.encode(db.user(), UTF_8)
        + "&password="
        + URLEncoder.encode(password(), UTF_8);
  }
}
