package dev.relayer.jooq.generated;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.codegen.CodegenDatabase;
import dev.relayer.codegen.DatabaseKeeper;
import dev.relayer.testkit.TestDatabase;
import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.jooq.codegen.GenerationTool;
import org.jooq.meta.jaxb.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The classes this module's build generated are, byte for byte, what jOOQ's generator makes of the
 * changelog with the configuration in this module's pom: the test applies the changelog to a fresh
 * database, runs {@link GenerationTool} with the jooq-codegen-maven configuration read from the pom
 * into a directory of its own, and compares every file. A stale or hand-edited generated source, a
 * generation that saw other tables, or a plugin that read its configuration differently fails it.
 */
class GeneratedClassesIT {

  private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

  @Test
  void generatedClassesAreWhatThePomConfigurationMakesOfTheChangelog(@TempDir Path regenerated)
      throws Exception {
    assertThat(Boolean.getBoolean("jooq.codegen.skip"))
        .as("jooq.codegen.skip is set: the generator skips, and there is nothing to compare")
        .isFalse();
    Path built = Path.of(requiredProperty("relayer.codegen.generated"));
    Element project = parse(Path.of(requiredProperty("relayer.codegen.pom")));
    Map<String, String> properties = properties(project);
    try (TestDatabase database = CodegenDatabase.create(properties.get("relayer.codegen.schema"))) {
      properties.put(DatabaseKeeper.URL, database.jdbcUrl());
      properties.put(DatabaseKeeper.USER, database.user());
      properties.put(
          DatabaseKeeper.PASSWORD, database.password() == null ? "" : database.password());
      properties.put("jooq.target.directory", regenerated.toString());
      String xml = interpolate(toXml(codegenConfiguration(project)), properties);
      Configuration configuration =
          GenerationTool.load(new ByteArrayInputStream(xml.getBytes(UTF_8)));
      GenerationTool.generate(configuration);
    }

    List<Path> files = files(regenerated);
    assertThat(files).as("classes generated again in %s", regenerated).isNotEmpty();
    assertThat(files(built)).as("files the build generated in %s", built).isEqualTo(files);
    for (Path file : files) {
      assertThat(Files.readString(built.resolve(file)))
          .as("%s as the build generated it", file)
          .isEqualTo(Files.readString(regenerated.resolve(file)));
      assertThat(Files.mismatch(built.resolve(file), regenerated.resolve(file)))
          .as("first differing byte of %s", file)
          .isEqualTo(-1L);
    }
  }

  private static String requiredProperty(String name) {
    return Objects.requireNonNull(
        System.getProperty(name),
        () -> name + " is not set: run the test through Maven (failsafe)");
  }

  private static Element parse(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    return factory.newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
  }

  /** The pom's own {@code <properties>}. */
  private static Map<String, String> properties(Element project) {
    Map<String, String> properties = new HashMap<>();
    for (Element element : children(child(project, "properties"))) {
      properties.put(element.getTagName(), element.getTextContent().trim());
    }
    return properties;
  }

  /** The {@code <configuration>} of the jooq-codegen-maven plugin in the pom's build. */
  private static Element codegenConfiguration(Element project) {
    for (Element plugin : children(child(child(project, "build"), "plugins"))) {
      if (child(plugin, "artifactId").getTextContent().trim().equals("jooq-codegen-maven")) {
        return child(plugin, "configuration");
      }
    }
    throw new AssertionError("no jooq-codegen-maven plugin in the pom's build");
  }

  private static Element child(Element parent, String name) {
    return children(parent).stream()
        .filter(element -> element.getTagName().equals(name))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no <" + name + "> in <" + parent.getTagName() + ">"));
  }

  private static List<Element> children(Element parent) {
    List<Element> children = new ArrayList<>();
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element) {
        children.add(element);
      }
    }
    return children;
  }

  /** The element as jOOQ's standalone configuration file: the same elements, no namespace. */
  private static String toXml(Element configuration) throws Exception {
    var transformer = TransformerFactory.newInstance().newTransformer();
    transformer.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
    StringWriter xml = new StringWriter();
    transformer.transform(new DOMSource(configuration), new StreamResult(xml));
    return xml.toString();
  }

  /**
   * Replaces every {@code ${name}} as Maven would, escaped for XML (a JDBC URL may carry {@code
   * &}); a name without a value fails the test.
   */
  private static String interpolate(String text, Map<String, String> properties) {
    Matcher matcher = PROPERTY.matcher(text);
    StringBuilder result = new StringBuilder();
    while (matcher.find()) {
      String value = properties.get(matcher.group(1));
      if (value == null) {
        throw new AssertionError(
            "no value for ${" + matcher.group(1) + "} in the pom's properties");
      }
      String escaped = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
      matcher.appendReplacement(result, Matcher.quoteReplacement(escaped));
    }
    return matcher.appendTail(result).toString();
  }

  /** Every regular file under {@code root}, relative to it, in order. */
  private static List<Path> files(Path root) throws Exception {
    try (Stream<Path> paths = Files.walk(root)) {
      return paths.filter(Files::isRegularFile).map(root::relativize).sorted().toList();
    }
  }
}
