package dev.relayer.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The class paths Maven gives an application that declares a list of artifacts, made of the jars of
 * this JVM's class path: the declared artifacts, and what their poms bring transitively.
 *
 * <p>Every element of this JVM's class path that is a Maven artifact's main jar (or a reactor
 * module's {@code target/classes}) is identified by its coordinates, from the {@code
 * pom.properties} Maven packs into a jar, else from the local repository's layout; its pom (the
 * reactor module's {@code pom.xml}, the one packed into the jar, or the one next to it in the
 * repository) says what it depends on. Walking those poms from the declared artifacts follows
 * Maven's rules for an application's class path: {@code compile} dependencies are on the compile
 * class path, {@code compile} and {@code runtime} ones on the run class path; {@code test}, {@code
 * provided}, {@code system} and optional ones are not inherited; exclusions hold below where they
 * are declared. Scopes and dependencies inherited from parent poms are read when the parent pom can
 * be found (a reactor module's relative path, the local repository).
 *
 * <p>Versions are not resolved: Maven already chose them for this JVM's class path, and an artifact
 * stands for the jar of it found there. An artifact the walk reaches that is not on this JVM's
 * class path is left out (and listed in {@link #missing()}), which can only make the class path
 * smaller than Maven's, never larger.
 */
final class DeclaredClassPath {

  /** A Maven artifact's group and artifact id. */
  record Artifact(String groupId, String artifactId) {
    @Override
    public String toString() {
      return groupId + ":" + artifactId;
    }
  }

  /** A class path element that is the main jar (or classes) of {@code artifact}. */
  record Entry(Path path, Artifact artifact, String version) {}

  private record Dependency(
      Artifact artifact, String scope, boolean optional, Set<String> exclusions) {}

  private record Pom(Entry entry, Document document, Path location) {}

  private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

  private final Map<Artifact, Entry> entries;
  private final Map<Artifact, List<Dependency>> dependencies = new HashMap<>();
  private final Set<Artifact> missing =
      new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
  private final Path repository;

  private DeclaredClassPath(Map<Artifact, Entry> entries, Path repository) {
    this.entries = entries;
    this.repository = repository;
  }

  /** Identifies the elements of this JVM's class path. */
  static DeclaredClassPath ofThisJvm() {
    Map<Artifact, Entry> entries = new LinkedHashMap<>();
    Path repository = null;
    for (String element :
        System.getProperty("java.class.path").split(java.io.File.pathSeparator, -1)) {
      Path path = Path.of(element).toAbsolutePath().normalize();
      Entry entry = identify(path);
      if (entry != null) {
        entries.putIfAbsent(entry.artifact(), entry);
        Path root = repositoryRoot(entry);
        if (repository == null && root != null) {
          repository = root;
        }
      }
    }
    if (repository == null) {
      repository = Path.of(System.getProperty("user.home"), ".m2", "repository");
    }
    return new DeclaredClassPath(entries, repository);
  }

  /** The element of this JVM's class path that is {@code artifact}'s main jar, if there is one. */
  Entry entry(Artifact artifact) {
    return entries.get(artifact);
  }

  /** The compile class path of an application declaring {@code declared} in compile scope. */
  List<Path> compileClassPath(Collection<Artifact> declared) {
    return walk(declared, Set.of("compile"));
  }

  /** The run class path of an application declaring {@code declared} in compile scope. */
  List<Path> runClassPath(Collection<Artifact> declared) {
    return walk(declared, Set.of("compile", "runtime"));
  }

  /** Artifacts a walk reached that are not on this JVM's class path. */
  Set<Artifact> missing() {
    return Set.copyOf(missing);
  }

  private List<Path> walk(Collection<Artifact> declared, Set<String> scopes) {
    record Step(Artifact artifact, Set<String> exclusions) {}
    Set<Artifact> seen = new LinkedHashSet<>();
    Deque<Step> queue = new ArrayDeque<>();
    for (Artifact artifact : declared) {
      if (seen.add(artifact)) {
        queue.add(new Step(artifact, Set.of()));
      }
    }
    List<Path> paths = new ArrayList<>();
    while (!queue.isEmpty()) {
      Step step = queue.poll();
      Entry entry = entries.get(step.artifact());
      if (entry == null) {
        missing.add(step.artifact());
        continue;
      }
      paths.add(entry.path());
      for (Dependency dependency : dependencies(entry)) {
        if (dependency.optional()
            || !scopes.contains(dependency.scope())
            || excluded(dependency.artifact(), step.exclusions())) {
          continue;
        }
        if (seen.add(dependency.artifact())) {
          Set<String> exclusions = new HashSet<>(step.exclusions());
          exclusions.addAll(dependency.exclusions());
          queue.add(new Step(dependency.artifact(), exclusions));
        }
      }
    }
    return paths;
  }

  private static boolean excluded(Artifact artifact, Set<String> exclusions) {
    return exclusions.contains(artifact.toString())
        || exclusions.contains(artifact.groupId() + ":*")
        || exclusions.contains("*:" + artifact.artifactId())
        || exclusions.contains("*:*");
  }

  /** What {@code element}'s pom, with its parents, declares as dependencies. */
  private List<Dependency> dependencies(Entry entry) {
    return dependencies.computeIfAbsent(entry.artifact(), a -> readDependencies(entry));
  }

  private List<Dependency> readDependencies(Entry entry) {
    List<Pom> chain = new ArrayList<>(); // the artifact's pom first, then its parents
    for (Pom pom = pomOf(entry); pom != null; pom = parentOf(pom)) {
      chain.add(pom);
    }
    if (chain.isEmpty()) {
      throw new AssertionError("no pom found for " + entry.artifact() + " at " + entry.path());
    }
    Map<String, String> properties = properties(chain);
    Map<String, String> managedScopes = new HashMap<>();
    for (Pom pom : chain) {
      Element management = child(pom.document().getDocumentElement(), "dependencyManagement");
      for (Element declared : children(child(management, "dependencies"), "dependency")) {
        String scope = text(declared, "scope");
        String key =
            interpolate(text(declared, "groupId"), properties)
                + ":"
                + interpolate(text(declared, "artifactId"), properties);
        if (scope != null) {
          managedScopes.putIfAbsent(key, interpolate(scope, properties));
        }
      }
    }
    List<Dependency> found = new ArrayList<>();
    for (Pom pom : chain) {
      Element list = child(pom.document().getDocumentElement(), "dependencies");
      for (Element declared : children(list, "dependency")) {
        String type = text(declared, "type");
        if (type != null && !type.equals("jar")) {
          continue;
        }
        Artifact artifact =
            new Artifact(
                interpolate(text(declared, "groupId"), properties),
                interpolate(text(declared, "artifactId"), properties));
        String scope = text(declared, "scope");
        if (scope == null) {
          scope = managedScopes.getOrDefault(artifact.toString(), "compile");
        }
        Set<String> exclusions = new HashSet<>();
        for (Element exclusion : children(child(declared, "exclusions"), "exclusion")) {
          exclusions.add(
              interpolate(text(exclusion, "groupId"), properties)
                  + ":"
                  + interpolate(text(exclusion, "artifactId"), properties));
        }
        found.add(
            new Dependency(
                artifact,
                interpolate(scope, properties),
                "true".equals(interpolate(text(declared, "optional"), properties)),
                exclusions));
      }
    }
    return found;
  }

  private static Map<String, String> properties(List<Pom> chain) {
    Map<String, String> properties = new HashMap<>();
    for (int i = chain.size() - 1; i >= 0; i--) { // parents first: children override them
      Element project = chain.get(i).document().getDocumentElement();
      for (Element property : children(child(project, "properties"), null)) {
        properties.put(property.getTagName(), property.getTextContent().trim());
      }
    }
    Element project = chain.get(0).document().getDocumentElement();
    Element parent = child(project, "parent");
    String groupId =
        text(project, "groupId") != null ? text(project, "groupId") : text(parent, "groupId");
    String version =
        text(project, "version") != null ? text(project, "version") : text(parent, "version");
    properties.put("project.groupId", groupId);
    properties.put("pom.groupId", groupId);
    properties.put("groupId", groupId);
    properties.put("project.artifactId", text(project, "artifactId"));
    properties.put("project.version", version);
    properties.put("pom.version", version);
    properties.put("version", version);
    if (parent != null) {
      properties.put("project.parent.groupId", text(parent, "groupId"));
      properties.put("project.parent.version", text(parent, "version"));
    }
    return properties;
  }

  private static String interpolate(String value, Map<String, String> properties) {
    if (value == null) {
      return null;
    }
    String result = value;
    for (int round = 0; round < 10 && result.contains("${"); round++) {
      Matcher matcher = PROPERTY.matcher(result);
      StringBuilder replaced = new StringBuilder();
      while (matcher.find()) {
        String property = properties.get(matcher.group(1));
        matcher.appendReplacement(
            replaced, Matcher.quoteReplacement(property == null ? matcher.group() : property));
      }
      matcher.appendTail(replaced);
      if (replaced.toString().equals(result)) {
        break;
      }
      result = replaced.toString();
    }
    return result;
  }

  /** The pom of a class path element: its reactor module's, the jar's own, or the repository's. */
  private Pom pomOf(Entry entry) {
    Path path = entry.path();
    Path module = moduleDirectory(path);
    if (module != null) {
      return new Pom(entry, parse(module.resolve("pom.xml")), module);
    }
    Path beside =
        path.resolveSibling(entry.artifact().artifactId() + "-" + entry.version() + ".pom");
    if (Files.isRegularFile(beside)) {
      return new Pom(entry, parse(beside), null);
    }
    String inside =
        "META-INF/maven/"
            + entry.artifact().groupId()
            + "/"
            + entry.artifact().artifactId()
            + "/pom.xml";
    try (JarFile jar = new JarFile(path.toFile())) {
      JarEntry packed = jar.getJarEntry(inside);
      if (packed != null) {
        try (InputStream in = jar.getInputStream(packed)) {
          return new Pom(entry, parse(in), null);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return null;
  }

  private Pom parentOf(Pom pom) {
    Element parent = child(pom.document().getDocumentElement(), "parent");
    if (parent == null) {
      return null;
    }
    String groupId = text(parent, "groupId");
    String artifactId = text(parent, "artifactId");
    String version = text(parent, "version");
    if (pom.location() != null) {
      String relative = text(parent, "relativePath");
      Path candidate =
          pom.location().resolve(relative == null ? "../pom.xml" : relative).normalize();
      if (Files.isDirectory(candidate)) {
        candidate = candidate.resolve("pom.xml");
      }
      if (Files.isRegularFile(candidate)) {
        Document document = parse(candidate);
        if (artifactId.equals(text(document.getDocumentElement(), "artifactId"))) {
          return new Pom(pom.entry(), document, candidate.getParent());
        }
      }
    }
    Path inRepository =
        repository
            .resolve(groupId.replace('.', '/'))
            .resolve(artifactId)
            .resolve(version)
            .resolve(artifactId + "-" + version + ".pom");
    return Files.isRegularFile(inRepository)
        ? new Pom(pom.entry(), parse(inRepository), null)
        : null;
  }

  /** Identifies a class path element as an artifact's main jar or classes, or returns null. */
  private static Entry identify(Path path) {
    Path module = moduleDirectory(path);
    if (Files.isDirectory(path)) {
      if (module == null || !path.getFileName().toString().equals("classes")) {
        return null;
      }
      Element project = parse(module.resolve("pom.xml")).getDocumentElement();
      String groupId = text(project, "groupId");
      String version = text(project, "version");
      Element parent = child(project, "parent");
      return new Entry(
          path,
          new Artifact(
              groupId != null ? groupId : text(parent, "groupId"), text(project, "artifactId")),
          version != null ? version : text(parent, "version"));
    }
    if (!path.getFileName().toString().endsWith(".jar") || !Files.isRegularFile(path)) {
      return null;
    }
    String file = path.getFileName().toString();
    try (JarFile jar = new JarFile(path.toFile())) {
      for (JarEntry entry : java.util.Collections.list(jar.entries())) {
        String name = entry.getName();
        if (name.startsWith("META-INF/maven/") && name.endsWith("/pom.properties")) {
          Properties coordinates = new Properties();
          try (InputStream in = jar.getInputStream(entry)) {
            coordinates.load(in);
          }
          String artifactId = coordinates.getProperty("artifactId");
          String version = coordinates.getProperty("version");
          if (file.equals(artifactId + "-" + version + ".jar")) {
            return new Entry(
                path, new Artifact(coordinates.getProperty("groupId"), artifactId), version);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // No pom.properties (a jar not built by Maven): the repository's layout,
    // group/artifact/version/file.
    Path versionDirectory = path.getParent();
    Path artifactDirectory = versionDirectory == null ? null : versionDirectory.getParent();
    if (artifactDirectory == null) {
      return null;
    }
    String version = versionDirectory.getFileName().toString();
    String artifactId = artifactDirectory.getFileName().toString();
    Path pom = path.resolveSibling(artifactId + "-" + version + ".pom");
    if (!file.equals(artifactId + "-" + version + ".jar") || !Files.isRegularFile(pom)) {
      return null;
    }
    Element project = parse(pom).getDocumentElement();
    String groupId = text(project, "groupId");
    if (groupId == null) {
      groupId = text(child(project, "parent"), "groupId");
    }
    return artifactId.equals(text(project, "artifactId"))
        ? new Entry(path, new Artifact(groupId, artifactId), version)
        : null;
  }

  /** The local repository holding {@code entry}, if it is laid out as one. */
  private static Path repositoryRoot(Entry entry) {
    Path root = entry.path().getParent(); // the version directory
    int levels = 2 + entry.artifact().groupId().split("\\.").length;
    for (int i = 0; i < levels && root != null; i++) {
      root = root.getParent();
    }
    if (root == null) {
      return null;
    }
    Path expected =
        root.resolve(entry.artifact().groupId().replace('.', '/'))
            .resolve(entry.artifact().artifactId())
            .resolve(entry.version())
            .resolve(entry.path().getFileName());
    return expected.equals(entry.path()) ? root : null;
  }

  /** The module directory of a reactor module's {@code target/…} element, or null. */
  private static Path moduleDirectory(Path path) {
    Path target = path.getParent();
    if (target == null || !target.getFileName().toString().equals("target")) {
      return null;
    }
    Path module = target.getParent();
    return module != null && Files.isRegularFile(module.resolve("pom.xml")) ? module : null;
  }

  private static Document parse(Path pom) {
    try (InputStream in = Files.newInputStream(pom)) {
      return parse(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Document parse(InputStream in) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      return factory.newDocumentBuilder().parse(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("unreadable pom", e);
    }
  }

  /** The first child element of {@code parent} named {@code name}, or null. */
  static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  /** The child elements of {@code parent} named {@code name} (any name if null). */
  static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    if (parent == null) {
      return found;
    }
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node node = nodes.item(i);
      if (node instanceof Element element && (name == null || element.getTagName().equals(name))) {
        found.add(element);
      }
    }
    return found;
  }

  /** The trimmed text of {@code parent}'s child {@code name}, or null. */
  static String text(Element parent, String name) {
    Element element = child(parent, name);
    return element == null ? null : element.getTextContent().trim();
  }
}
