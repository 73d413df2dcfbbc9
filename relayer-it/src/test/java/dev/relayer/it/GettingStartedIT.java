package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.relayer.it.DeclaredClassPath.Artifact;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * The README's getting-started file, taken out of the README and built the way a newcomer builds
 * it: compiled against the jars of the artifacts the README's dependency block names (and what
 * their poms bring, see {@link DeclaredClassPath}) and nothing else, then run in a JVM of its own
 * with that class path, against the test PostgreSQL and the RabbitMQ of {@code
 * RELAYER_RABBITMQ_URI} (default {@value RabbitMqFixture#DEFAULT_URI}).
 */
class GettingStartedIT {

  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
  private static final Pattern CLASS = Pattern.compile("(?m)^public final class (\\w+)");

  /** The exchange, queue and binding of the README's file. */
  private static final String EXCHANGE = "orders";

  private static final String QUEUE = "billing";
  private static final String ROUTING_KEY = "order.placed";

  private static String readme;
  private static String source;
  private static List<Dependency> dependencies;
  private static DeclaredClassPath jvm;

  /** One {@code <dependency>} of the README's block. */
  private record Dependency(Artifact artifact, String version, String scope) {}

  @BeforeAll
  static void readTheReadme() throws IOException {
    readme = Files.readString(ROOT.resolve("README.md"), UTF_8);
    source = between(readme, "<!-- snippet:getting-started -->\n```java\n", "\n```\n") + "\n";
    dependencies =
        parseDependencies(
            between(readme, "<!-- snippet:getting-started-dependencies -->\n```xml\n", "```"));
    jvm = DeclaredClassPath.ofThisJvm();
  }

  @Test
  void theReadmeFileBuiltFromOnlyTheArtifactsItNamesPublishesToRabbitMqAndCommitsTheInboxRow(
      @TempDir Path classes) throws Exception {
    List<Artifact> declared = declaredForTheApplication();
    List<Path> compileClassPath = jvm.compileClassPath(declared);
    assertThat(jvm.missing())
        .as("artifacts the README's poms bring but this build lacks")
        .isEmpty();
    assertThat(compileClassPath)
        .as("the README's artifacts never bring the testkit or the in-memory transport")
        .noneMatch(p -> p.toString().contains("relayer-testkit"))
        .noneMatch(p -> p.toString().contains("relayer-transport-memory"));
    List<Diagnostic<? extends JavaFileObject>> errors = compile(source, compileClassPath, classes);
    assertThat(errors).as("javac errors against %s", compileClassPath).isEmpty();

    try (TestDatabase db = TestDatabase.create();
        Connection rabbit = connect();
        Channel channel = rabbit.createChannel()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.of("messaging", "orders_"));
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      dsl.createTable("orders")
          .column("id", SQLDataType.INTEGER.notNull())
          .column("billed", SQLDataType.BOOLEAN.notNull().defaultValue(false))
          .primaryKey("id")
          .execute();
      // Start from nothing the file declares, then watch its exchange with a queue of our own.
      channel.queueDelete(QUEUE);
      channel.exchangeDelete(EXCHANGE);
      channel.exchangeDeclare(EXCHANGE, "topic", true);
      String watch = channel.queueDeclare("", false, true, true, null).getQueue();
      channel.queueBind(watch, EXCHANGE, ROUTING_KEY);
      try {
        List<String> command = new ArrayList<>();
        command.add(CliProcess.java().toString());
        command.add("-cp");
        command.add(
            Stream.concat(jvm.runClassPath(declared).stream(), Stream.of(classes))
                .map(Path::toString)
                .collect(Collectors.joining(File.pathSeparator)));
        command.add(mainClass(source));
        command.add(jdbcUrlWithCredentials(db));
        command.add(amqpUri());
        CliProcess run = CliProcess.run(command, Map.of(), null);
        assertThat(run.exitCode()).as("the file's output:%n%s%n%s", run.out(), run.err()).isZero();

        GetResponse copy = channel.basicGet(watch, true);
        assertThat(copy).as("a copy of the message in our queue on exchange orders").isNotNull();
        assertThat(copy.getProps().getType()).isEqualTo("order.placed");
        assertThat(new String(copy.getBody(), UTF_8)).isEqualTo("{\"orderId\":42}");
        assertThat(String.valueOf(copy.getProps().getHeaders().get("content-type")))
            .as("the serializer's content type, a header (an AMQP LongString)")
            .isEqualTo("application/json");
        UUID messageId = UUID.fromString(copy.getProps().getMessageId());
        assertThat(channel.basicGet(watch, true)).as("one message, once").isNull();
        assertThat(channel.messageCount(QUEUE))
            .as("the file consumed and acked its message")
            .isZero();

        Record inbox = dsl.selectFrom(table(name("messaging", "orders_inbox"))).fetchOne();
        assertThat(inbox).as("one inbox row").isNotNull();
        assertThat(inbox.get("consumer", String.class)).isEqualTo("billing");
        assertThat(inbox.get("message_id", UUID.class)).isEqualTo(messageId);
        assertThat(dsl.fetchCount(table(name("messaging", "orders_inbox")))).isEqualTo(1);
        assertThat(
                dsl.select(field(name("billed"), Boolean.class))
                    .from(table(name("orders")))
                    .where(field(name("id")).eq(42))
                    .fetchOne(0, Boolean.class))
            .as("the consumer's work committed with its inbox row")
            .isTrue();
        assertThat(dsl.fetchCount(table(name("messaging", "orders_outbox"))))
            .as("sent rows are deleted")
            .isZero();
        assertThat(dsl.fetchCount(table(name("messaging", "orders_outbox_dead")))).isZero();
      } finally {
        channel.queueDelete(QUEUE);
        channel.exchangeDelete(EXCHANGE);
      }
    }
  }

  @Test
  void theFileDoesNotCompileWithAClassOfAnArtifactTheReadmeNamesForTestsOnlyOrNotAtAll(
      @TempDir Path classes) {
    List<Path> compileClassPath = jvm.compileClassPath(declaredForTheApplication());
    // Both are on this test's class path: the testkit is not in the README, the in-memory
    // transport only in test scope.
    for (String unlisted :
        List.of(
            "dev.relayer.testkit.TestDatabase", "dev.relayer.transport.memory.InMemoryTransport")) {
      assertThat(classFileOf(unlisted)).as("%s is on this test's class path", unlisted).isNotNull();
      String withIt =
          source.replaceFirst(
              "(?m)^import org\\.jooq\\.DSLContext;",
              "import org.jooq.DSLContext;\nimport " + unlisted + ";");
      withIt =
          withIt.replaceFirst(
              "(?m)^  public static void main",
              "  static Class<?> unlisted = "
                  + simpleName(unlisted)
                  + ".class;\n\n  public static void main");
      List<Diagnostic<? extends JavaFileObject>> errors =
          compile(withIt, compileClassPath, classes);
      assertThat(errors)
          .as("compiling with %s", unlisted)
          .anyMatch(e -> e.getMessage(null).contains(packageOf(unlisted)));
    }
  }

  @Test
  void theReadmeStatesTheVersionsOfJooqHikariCpAndTheDriverThatTheBuildTestsWith() {
    List<Dependency> thirdParty =
        dependencies.stream().filter(d -> !d.artifact().groupId().equals("dev.relayer")).toList();
    assertThat(thirdParty)
        .extracting(d -> d.artifact().toString())
        .containsExactlyInAnyOrder(
            "org.jooq:jooq", "com.zaxxer:HikariCP", "org.postgresql:postgresql");
    for (Dependency dependency : thirdParty) {
      DeclaredClassPath.Entry entry = jvm.entry(dependency.artifact());
      assertThat(entry).as("%s on this build's class path", dependency.artifact()).isNotNull();
      assertThat(dependency.version()).as("%s", dependency.artifact()).isEqualTo(entry.version());
    }
    assertThat(dependencies)
        .filteredOn(d -> d.artifact().groupId().equals("dev.relayer"))
        .as("Relayer's versions come from the BOM")
        .allMatch(d -> d.version() == null);
  }

  /** The README's dependencies an application compiles against: all but those in test scope. */
  private static List<Artifact> declaredForTheApplication() {
    return dependencies.stream()
        .filter(d -> !"test".equals(d.scope()))
        .map(Dependency::artifact)
        .toList();
  }

  private static List<Dependency> parseDependencies(String block) {
    String project = "<project>" + block + "</project>";
    Element root =
        DeclaredClassPath.parse(new ByteArrayInputStream(project.getBytes(UTF_8)))
            .getDocumentElement();
    Element management = DeclaredClassPath.child(root, "dependencyManagement");
    List<Element> imports =
        DeclaredClassPath.children(
            DeclaredClassPath.child(management, "dependencies"), "dependency");
    assertThat(imports)
        .as("the README imports relayer-bom")
        .anyMatch(
            d ->
                "relayer-bom".equals(DeclaredClassPath.text(d, "artifactId"))
                    && "import".equals(DeclaredClassPath.text(d, "scope")));
    List<Dependency> found = new ArrayList<>();
    for (Element dependency :
        DeclaredClassPath.children(DeclaredClassPath.child(root, "dependencies"), "dependency")) {
      found.add(
          new Dependency(
              new Artifact(
                  DeclaredClassPath.text(dependency, "groupId"),
                  DeclaredClassPath.text(dependency, "artifactId")),
              DeclaredClassPath.text(dependency, "version"),
              DeclaredClassPath.text(dependency, "scope")));
    }
    assertThat(found).as("dependencies in the README's block").isNotEmpty();
    return found;
  }

  /** Compiles {@code code} with only {@code classPath} (and the JDK); returns javac's errors. */
  private static List<Diagnostic<? extends JavaFileObject>> compile(
      String code, List<Path> classPath, Path classes) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    String file = mainClass(code).replace('.', '/') + ".java";
    JavaFileObject unit =
        new SimpleJavaFileObject(URI.create("string:///" + file), JavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
          }
        };
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, UTF_8)) {
      List<String> options =
          List.of(
              "--release",
              "17",
              "-proc:none",
              "-implicit:none",
              "-classpath",
              classPath.stream()
                  .map(Path::toString)
                  .collect(Collectors.joining(File.pathSeparator)),
              "-d",
              classes.toString());
      javac.getTask(null, files, diagnostics, options, null, List.of(unit)).call();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
        .toList();
  }

  private static String mainClass(String code) {
    Matcher pkg = PACKAGE.matcher(code);
    Matcher cls = CLASS.matcher(code);
    assertThat(pkg.find()).as("a package declaration").isTrue();
    assertThat(cls.find()).as("a public final class").isTrue();
    return pkg.group(1) + "." + cls.group(1);
  }

  private static String jdbcUrlWithCredentials(TestDatabase db) {
    String url = db.jdbcUrl();
    StringBuilder withCredentials = new StringBuilder(url);
    withCredentials.append(url.contains("?") ? '&' : '?');
    withCredentials.append("user=").append(URLEncoder.encode(db.user(), UTF_8));
    if (db.password() != null) {
      withCredentials.append("&password=").append(URLEncoder.encode(db.password(), UTF_8));
    }
    return withCredentials.toString();
  }

  /**
   * The test broker's URI with its vhost spelled out: RabbitMQ's client reads a bare {@code /} as
   * an empty vhost name, which no broker has (the transport reads it as {@code /}).
   */
  private static String amqpUri() {
    String uri = RabbitMqFixture.brokerUri();
    String path = URI.create(uri).getRawPath();
    if (path == null || path.isEmpty()) {
      return uri + "/%2F";
    }
    return path.equals("/") ? uri + "%2F" : uri;
  }

  private static Connection connect() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(amqpUri());
    factory.setConnectionTimeout((int) Duration.ofSeconds(5).toMillis());
    return factory.newConnection("relayer-getting-started-it");
  }

  private static java.net.URL classFileOf(String className) {
    return GettingStartedIT.class
        .getClassLoader()
        .getResource(className.replace('.', '/') + ".class");
  }

  private static String packageOf(String className) {
    return className.substring(0, className.lastIndexOf('.'));
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  private static String between(String text, String start, String end) {
    int from = text.indexOf(start);
    assertThat(from).as("marker %s", start.trim()).isNotNegative();
    int to = text.indexOf(end, from + start.length());
    assertThat(to).as("end of the block after %s", start.trim()).isPositive();
    return text.substring(from + start.length(), to);
  }
}
