package dev.relayer.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The release dry run: every {@code verify} of the reactor deploys the published modules, unsigned,
 * to a file repository under the root's {@code target/}; this test reads that repository as Maven
 * Central would. Every published artifact has a pom with the metadata Central requires (its own or
 * inherited from a published parent), a sources jar and a Javadoc jar; the examples, the
 * benchmarks, the integration tests and the build's own tools are not there; and no published
 * module needs an unpublished one at run time.
 */
class ReleaseDryRunIT {

  private static final Path REPOSITORY =
      Path.of(System.getProperty("relayer.dry-run.repository", "../target/release-dry-run"));
  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));
  private static final String VERSION = System.getProperty("relayer.version", "");
  private static final Path GROUP = REPOSITORY.resolve("dev/relayer");

  /** Reactor modules that must never reach Maven Central. */
  private static final Set<String> UNPUBLISHED =
      Set.of(
          "relayer-it",
          "relayer-bench",
          "relayer-codegen",
          "relayer-release-check",
          "relayer-example-orders-service");

  /** What a published artifact's effective pom must say (Central's requirements). */
  private static final List<String> REQUIRED =
      List.of("name", "description", "url", "licenses", "developers", "scm");

  /** The newest deployed file of each artifact, by its classifier and extension. */
  private static final Map<String, Map<String, Path>> DEPLOYED = new LinkedHashMap<>();

  @BeforeAll
  static void readTheRepository() throws Exception {
    assumeFalse(
        Boolean.parseBoolean(System.getProperty("relayer.dry-run.skipped", "false")),
        "the build skipped the dry run (-Dmaven.deploy.skip)");
    assertThat(GROUP)
        .as(
            "the dry run's repository; build the whole reactor online from the root"
                + " (mvn verify): offline, Maven refuses to deploy")
        .isDirectory();
    try (var artifacts = Files.list(GROUP)) {
      for (Path artifact : artifacts.sorted().toList()) {
        Path dir = artifact.resolve(VERSION);
        if (Files.isDirectory(dir)) {
          DEPLOYED.put(artifact.getFileName().toString(), newestFiles(dir));
        }
      }
    }
  }

  @Test
  void everyPublishedModuleIsDeployedAndNothingElse() throws Exception {
    Set<String> expected = new TreeSet<>(published());
    expected.add("relayer-parent");
    expected.add("relayer-bom");
    assertThat(DEPLOYED.keySet()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(DEPLOYED.keySet()).doesNotContainAnyElementsOf(UNPUBLISHED);
  }

  @Test
  void everyJarComesWithItsPomSourcesAndJavadoc() throws Exception {
    for (Map.Entry<String, Map<String, Path>> artifact : DEPLOYED.entrySet()) {
      Map<String, Path> files = artifact.getValue();
      assertThat(files).as("%s: its pom", artifact.getKey()).containsKey("pom");
      String packaging = packaging(parse(files.get("pom")));
      if (packaging.equals("pom")) {
        continue;
      }
      assertThat(files)
          .as("%s: jar, sources and Javadoc", artifact.getKey())
          .containsKeys("jar", "sources.jar", "javadoc.jar");
      assertThat(entries(files.get("sources.jar")))
          .as("%s: its sources jar holds its sources", artifact.getKey())
          .anyMatch(name -> name.endsWith(".java"));
      assertThat(entries(files.get("javadoc.jar")))
          .as("%s: its Javadoc jar holds the Javadoc", artifact.getKey())
          .contains("index.html");
      assertThat(entries(files.get("jar")))
          .as("%s: its jar holds classes", artifact.getKey())
          .anyMatch(name -> name.endsWith(".class"));
    }
    assertThat(DEPLOYED.get("relayer-cli"))
        .as("the command's distribution archives and runnable jar")
        .containsKeys("dist.zip", "dist.tar.gz", "all.jar");
  }

  @Test
  void everyPomCarriesTheMetadataMavenCentralRequires() throws Exception {
    for (Map.Entry<String, Map<String, Path>> artifact : DEPLOYED.entrySet()) {
      Map<String, String> effective = effectiveMetadata(artifact.getKey());
      assertThat(effective.keySet())
          .as("%s: the metadata of its pom and its parents", artifact.getKey())
          .containsAll(REQUIRED);
      assertThat(effective.get("licenses")).contains("Apache License, Version 2.0");
      assertThat(effective.get("scm")).contains("scm:git:");
      assertThat(effective.get("url")).startsWith("https://");
    }
  }

  @Test
  void noPublishedModuleNeedsAnUnpublishedOneAtRunTime() throws Exception {
    for (Map.Entry<String, Map<String, Path>> artifact : DEPLOYED.entrySet()) {
      Element project = parse(artifact.getValue().get("pom")).getDocumentElement();
      Element dependencies = child(project, "dependencies");
      if (dependencies == null) {
        continue;
      }
      for (Element dependency : children(dependencies, "dependency")) {
        String scope = text(dependency, "scope");
        if (!"dev.relayer".equals(text(dependency, "groupId"))
            || "test".equals(scope)
            || "provided".equals(scope)) {
          continue;
        }
        assertThat(DEPLOYED)
            .as("%s needs %s at run time", artifact.getKey(), text(dependency, "artifactId"))
            .containsKey(text(dependency, "artifactId"));
      }
    }
  }

  @Test
  void everyJarEntryCarriesTheSameTimestampSoTheBuildIsReproducible() throws Exception {
    for (Map.Entry<String, Map<String, Path>> artifact : DEPLOYED.entrySet()) {
      for (Map.Entry<String, Path> file : artifact.getValue().entrySet()) {
        // The shaded all.jar keeps its dependencies' own entry times.
        if (!file.getKey().endsWith("jar") || file.getKey().equals("all.jar")) {
          continue;
        }
        Set<FileTime> times = new TreeSet<>();
        try (InputStream in = Files.newInputStream(file.getValue());
            JarInputStream jar = new JarInputStream(in)) {
          for (JarEntry e = jar.getNextJarEntry(); e != null; e = jar.getNextJarEntry()) {
            times.add(e.getLastModifiedTime());
          }
        }
        assertThat(times)
            .as(
                "%s %s: entry timestamps (project.build.outputTimestamp)",
                artifact.getKey(), file.getKey())
            .hasSize(1);
      }
    }
  }

  /** The reactor's modules that are published: those without a never-deploy marker. */
  private static Set<String> published() throws Exception {
    Set<String> published = new TreeSet<>();
    Element root = parse(ROOT.resolve("pom.xml")).getDocumentElement();
    for (Element module : children(child(root, "modules"), "module")) {
      Element project =
          parse(ROOT.resolve(module.getTextContent().trim()).resolve("pom.xml"))
              .getDocumentElement();
      String artifactId = text(project, "artifactId");
      if (!UNPUBLISHED.contains(artifactId)) {
        published.add(artifactId);
      }
    }
    return published;
  }

  /**
   * The metadata elements of {@code artifactId}'s deployed pom, each taken from the pom or, where
   * it has none, from its parent's deployed pom (as Maven inherits them), as text.
   */
  private static Map<String, String> effectiveMetadata(String artifactId) throws Exception {
    Map<String, String> metadata = new HashMap<>();
    String current = artifactId;
    while (current != null) {
      Map<String, Path> files = DEPLOYED.get(current);
      assertThat(files).as("the parent %s is deployed", current).isNotNull();
      Element project = parse(files.get("pom")).getDocumentElement();
      for (String name : REQUIRED) {
        Element element = child(project, name);
        if (element != null && !element.getTextContent().isBlank()) {
          metadata.putIfAbsent(name, element.getTextContent().trim());
        }
      }
      Element parent = child(project, "parent");
      current = parent == null ? null : text(parent, "artifactId");
    }
    return metadata;
  }

  /**
   * The newest deployed file of each kind in a snapshot (or release) directory, keyed {@code pom},
   * {@code jar}, or {@code <classifier>.<extension>}.
   */
  private static Map<String, Path> newestFiles(Path dir) throws Exception {
    Map<String, Path> files = new HashMap<>();
    Path metadata = dir.resolve("maven-metadata.xml");
    if (Files.exists(metadata)) {
      Element versioning = child(parse(metadata).getDocumentElement(), "versioning");
      Element snapshots = versioning == null ? null : child(versioning, "snapshotVersions");
      assertThat(snapshots).as("snapshot versions in %s", metadata).isNotNull();
      String artifactId = dir.getParent().getFileName().toString();
      for (Element snapshot : children(snapshots, "snapshotVersion")) {
        String classifier = text(snapshot, "classifier");
        String extension = text(snapshot, "extension");
        String value = text(snapshot, "value");
        String name =
            artifactId
                + "-"
                + value
                + (classifier == null ? "" : "-" + classifier)
                + "."
                + extension;
        files.put(classifier == null ? extension : classifier + "." + extension, dir.resolve(name));
      }
    } else {
      String prefix = dir.getParent().getFileName() + "-" + dir.getFileName();
      try (var list = Files.list(dir)) {
        for (Path file : list.toList()) {
          String name = file.getFileName().toString();
          if (name.startsWith(prefix) && !name.endsWith(".sha1") && !name.endsWith(".md5")) {
            // "-sources.jar" or ".pom": the key without its first character.
            files.put(name.substring(prefix.length() + 1), file);
          }
        }
      }
    }
    for (Path file : files.values()) {
      assertThat(file).as("deployed file").isRegularFile();
    }
    return files;
  }

  private static List<String> entries(Path jar) throws IOException {
    List<String> names = new ArrayList<>();
    try (InputStream in = Files.newInputStream(jar);
        JarInputStream stream = new JarInputStream(in)) {
      for (JarEntry e = stream.getNextJarEntry(); e != null; e = stream.getNextJarEntry()) {
        names.add(e.getName());
      }
    }
    return names;
  }

  private static String packaging(Document pom) {
    String packaging = text(pom.getDocumentElement(), "packaging");
    return packaging == null ? "jar" : packaging;
  }

  private static Document parse(Path xml) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    try (InputStream in = Files.newInputStream(xml)) {
      return factory.newDocumentBuilder().parse(in);
    }
  }

  private static String text(Element parent, String name) {
    Element element = child(parent, name);
    return element == null ? null : element.getTextContent().trim();
  }

  private static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        found.add(e);
      }
    }
    return found;
  }
}
