package dev.relayer.release;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The README's module table says what the poms say: every published module is in it, and each row's
 * "depends on" column names exactly the module's compile-scope dependencies on other Relayer
 * modules, the optional ones after {@code optional:}.
 */
class ModuleTableIT {

  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));

  /** Built but not published; the README says so under the table. */
  private static final Set<String> NOT_PUBLISHED =
      Set.of("relayer-codegen", "relayer-it", "relayer-bench", "relayer-release-check");

  /** What the table calls {@code the transports}. */
  private static final List<String> TRANSPORTS =
      List.of("transport-rabbitmq", "transport-kafka", "transport-nats");

  @Test
  void everyPublishedModuleHasARow() throws Exception {
    Set<String> published = new TreeSet<>();
    for (String module : children(document(ROOT.resolve("pom.xml")), "modules", "module")) {
      if (!module.contains("/") && !NOT_PUBLISHED.contains(module)) {
        published.add(module);
      }
    }
    assertThat(published).hasSizeGreaterThan(10);
    assertThat(table().keySet()).containsExactlyInAnyOrderElementsOf(published);
  }

  @Test
  void eachRowNamesTheModulesItsPomDependsOn() throws Exception {
    Map<String, Dependencies> table = table();
    List<String> differences = new ArrayList<>();
    for (Map.Entry<String, Dependencies> row : table.entrySet()) {
      Dependencies declared = declared(row.getKey());
      if (!declared.equals(row.getValue())) {
        differences.add(row.getKey() + ": README " + row.getValue() + ", pom " + declared);
      }
    }
    assertThat(table).containsKeys("relayer-store", "relayer-spring-boot-starter");
    assertThat(differences).isEmpty();
  }

  /** Module names without {@code relayer-}; optional ones apart. */
  record Dependencies(Set<String> required, Set<String> optional) {}

  /** The table's rows by module. */
  private static Map<String, Dependencies> table() throws Exception {
    List<String> lines = Files.readAllLines(ROOT.resolve("README.md"), UTF_8);
    int header = lines.indexOf("| module | what it holds | depends on (`relayer-…`) |");
    assertThat(header).as("the module table's header in the README").isNotNegative();
    Map<String, Dependencies> rows = new LinkedHashMap<>();
    for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      String[] cells = lines.get(i).split("\\|", -1);
      Dependencies dependencies = dependencies(cells[3]);
      for (String module : modules(cells[1])) {
        rows.put(module, dependencies);
      }
    }
    return rows;
  }

  /** {@code `relayer-transport-rabbitmq`, `-kafka`} names two modules. */
  private static List<String> modules(String cell) {
    List<String> modules = new ArrayList<>();
    String stem = "";
    for (String name : cell.replace("`", "").split(",", -1)) {
      String module = name.strip();
      if (module.startsWith("-")) {
        module = stem + module;
      } else {
        stem = module.substring(0, module.lastIndexOf('-'));
      }
      modules.add(module);
    }
    return modules;
  }

  /** {@code api, schema; optional: the transports, micrometer}; parentheses are comments. */
  private static Dependencies dependencies(String cell) {
    String text = cell.replaceAll("\\([^)]*\\)", "").strip();
    String[] parts = text.split(";", 2);
    Set<String> optional = new TreeSet<>();
    if (parts.length == 2) {
      String optionalPart = parts[1].strip();
      assertThat(optionalPart).startsWith("optional:");
      optional.addAll(names(optionalPart.substring("optional:".length())));
    }
    return new Dependencies(names(parts[0]), optional);
  }

  private static Set<String> names(String list) {
    Set<String> names = new TreeSet<>();
    for (String name : list.split(",", -1)) {
      String n = name.strip();
      if (n.equals("the transports")) {
        names.addAll(TRANSPORTS);
      } else if (!n.isEmpty() && !n.equals("—")) {
        names.add(n);
      }
    }
    return names;
  }

  /** The module's compile-scope dependencies on Relayer modules, as its pom declares them. */
  private static Dependencies declared(String module) throws Exception {
    Path pom = ROOT.resolve(module).resolve("pom.xml");
    assertThat(pom).as("pom of %s", module).exists();
    Set<String> required = new TreeSet<>();
    Set<String> optional = new TreeSet<>();
    Element project = document(pom);
    for (Node node : list(project.getElementsByTagName("dependency"))) {
      Element dependency = (Element) node;
      if (dependency.getParentNode().getParentNode() != project) {
        continue; // dependencyManagement or a plugin's dependencies
      }
      String groupId = text(dependency, "groupId");
      String artifactId = text(dependency, "artifactId");
      String scope = text(dependency, "scope");
      boolean relayer = groupId.equals("dev.relayer") || groupId.equals("${project.groupId}");
      if (relayer && (scope.isEmpty() || scope.equals("compile"))) {
        String name = artifactId.replaceFirst("^relayer-", "");
        (text(dependency, "optional").equals("true") ? optional : required).add(name);
      }
    }
    return new Dependencies(required, optional);
  }

  private static Element document(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(pom.toFile())
        .getDocumentElement();
  }

  private static List<String> children(Element parent, String container, String child) {
    List<String> texts = new ArrayList<>();
    for (Node list : list(parent.getElementsByTagName(container))) {
      for (Node node : list(((Element) list).getElementsByTagName(child))) {
        texts.add(node.getTextContent().strip());
      }
    }
    return texts;
  }

  private static String text(Element element, String child) {
    NodeList nodes = element.getElementsByTagName(child);
    return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().strip();
  }

  private static List<Node> list(NodeList nodes) {
    List<Node> list = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      list.add(nodes.item(i));
    }
    return list;
  }
}
