package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** {@code relayer-bom} manages every published module of the reactor, at the reactor's version. */
class BomIT {

  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));

  /** Reactor modules that are not published, or are the BOM itself. */
  private static final Set<String> UNPUBLISHED =
      Set.of(
          "relayer-bom",
          "relayer-codegen",
          "relayer-it",
          "relayer-bench",
          "relayer-release-check",
          "examples/orders-service");

  @Test
  void theBomManagesEveryPublishedModuleAtTheReactorVersion() throws Exception {
    Document root = parse(ROOT.resolve("pom.xml"));
    Document bom = parse(ROOT.resolve("relayer-bom/pom.xml"));
    String version = child(root.getDocumentElement(), "version");

    Set<String> published = new TreeSet<>();
    for (String module : texts(root.getDocumentElement(), "modules", "module")) {
      if (!UNPUBLISHED.contains(module)) {
        published.add(module);
      }
    }
    Set<String> managed = new TreeSet<>();
    Element management = first(bom.getDocumentElement(), "dependencyManagement");
    for (Element dependency : children(first(management, "dependencies"), "dependency")) {
      assertThat(child(dependency, "groupId")).isEqualTo("dev.relayer");
      assertThat(child(dependency, "version")).isEqualTo("${project.version}");
      managed.add(child(dependency, "artifactId"));
    }

    assertThat(child(bom.getDocumentElement(), "version")).isEqualTo(version);
    assertThat(first(bom.getDocumentElement(), "parent"))
        .as("a parent would leak relayer-parent's third-party versions into applications")
        .isNull();
    assertThat(managed).isEqualTo(published);
  }

  private static Document parse(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(Files.newInputStream(pom));
  }

  private static List<String> texts(Element parent, String list, String item) {
    List<String> texts = new ArrayList<>();
    for (Element element : children(first(parent, list), item)) {
      texts.add(element.getTextContent().trim());
    }
    return texts;
  }

  private static String child(Element parent, String name) {
    Element element = first(parent, name);
    assertThat(element).as("<%s> in <%s>", name, parent.getTagName()).isNotNull();
    return element.getTextContent().trim();
  }

  private static Element first(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node node = nodes.item(i);
      if (node instanceof Element element && element.getTagName().equals(name)) {
        found.add(element);
      }
    }
    return found;
  }
}
