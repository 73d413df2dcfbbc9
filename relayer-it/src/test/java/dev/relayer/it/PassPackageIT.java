package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The store's pass types ({@code dev.relayer.store.pass}) are for {@code relayer-dispatch} only: no
 * code an application runs or copies — the main sources of every other published module, the
 * examples, and the Java blocks of the README and the docs — names the package, and the dispatch
 * module's public API takes or returns none of its types.
 */
class PassPackageIT {

  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));
  private static final String PASS_PACKAGE = "dev.relayer.store.pass";

  /**
   * The store, which declares the package, and the dispatch module, its one user; and the benchmark
   * harness, which is never published and measures one lane claim on its own.
   */
  private static final Set<String> ALLOWED =
      Set.of("relayer-store", "relayer-dispatch", "relayer-bench");

  @Test
  void noApplicationFacingSourceOrDocumentNamesThePassPackage() throws IOException {
    List<Path> read = new ArrayList<>();
    List<String> naming = new ArrayList<>();
    for (Path file : applicationFacingFiles()) {
      read.add(file);
      if (code(file).contains(PASS_PACKAGE)) {
        naming.add(ROOT.relativize(file).toString());
      }
    }
    assertThat(read)
        .as("the files read include the starter, the examples and the README")
        .anySatisfy(f -> assertThat(f.toString()).contains("relayer-spring-boot-starter"))
        .anySatisfy(f -> assertThat(f.toString()).contains("examples"))
        .anySatisfy(f -> assertThat(f.getFileName().toString()).isEqualTo("README.md"));
    assertThat(naming).as("files that name %s", PASS_PACKAGE).isEmpty();
  }

  @Test
  void theDispatchModuleKeepsThePassTypesOutOfItsPublicSignatures() throws Exception {
    Path api = ROOT.resolve("relayer-dispatch/src/main/java/dev/relayer/dispatch");
    List<Class<?>> types = new ArrayList<>();
    try (Stream<Path> files = Files.list(api)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String name = file.getFileName().toString().replace(".java", "");
        if (!name.equals("package-info")) {
          Class<?> type = Class.forName("dev.relayer.dispatch." + name);
          types.add(type);
          types.addAll(List.of(type.getClasses()));
        }
      }
    }
    List<String> naming = new ArrayList<>();
    for (Class<?> type : types) {
      List<String> signatures = new ArrayList<>();
      for (Method m : type.getMethods()) {
        signatures.add(m.toGenericString());
      }
      for (Constructor<?> c : type.getConstructors()) {
        signatures.add(c.toGenericString());
      }
      for (Field f : type.getFields()) {
        signatures.add(f.toGenericString());
      }
      for (String signature : signatures) {
        if (signature.contains(PASS_PACKAGE + ".")) {
          naming.add(signature);
        }
      }
    }
    assertThat(types).as("the public types read").hasSizeGreaterThan(10);
    assertThat(naming)
        .as("public members of dev.relayer.dispatch that take or give a pass type")
        .isEmpty();
  }

  /** The file's text, or for a Markdown file the text of its Java blocks. */
  private static String code(Path file) throws IOException {
    String text = Files.readString(file, UTF_8);
    if (!file.toString().endsWith(".md")) {
      return text;
    }
    StringBuilder java = new StringBuilder();
    boolean inJava = false;
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("```")) {
        inJava = !inJava && line.strip().equals("```java");
      } else if (inJava) {
        java.append(line).append('\n');
      }
    }
    return java.toString();
  }

  private static List<Path> applicationFacingFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
        String name = module.getFileName().toString();
        Path main = module.resolve("src/main");
        if (name.startsWith("relayer-") && !ALLOWED.contains(name) && Files.isDirectory(main)) {
          files.addAll(regularFiles(main));
        }
      }
    }
    for (Path file : regularFiles(ROOT.resolve("examples"))) {
      if (!file.toString().contains("/target/")) {
        files.add(file);
      }
    }
    files.addAll(regularFiles(ROOT.resolve("docs")));
    files.add(ROOT.resolve("README.md"));
    return files.stream().filter(PassPackageIT::isText).toList();
  }

  private static List<Path> regularFiles(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).toList();
    }
  }

  private static boolean isText(Path file) {
    String name = file.getFileName().toString();
    return Stream.of(".java", ".md", ".xml", ".yaml", ".yml", ".properties", ".json", ".imports")
        .anyMatch(name::endsWith);
  }
}
