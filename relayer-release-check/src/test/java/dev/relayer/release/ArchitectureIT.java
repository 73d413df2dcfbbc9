package dev.relayer.release;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape of the published modules, read from their classes: which packages an application-facing
 * module may reach, and that the store's packages stay free of cycles.
 *
 * <p>The store's pass package and the internal (rendering) packages serve the dispatch module only;
 * the store's face never reaches the pass package; operator steps are reached only through {@code
 * RelayerOperator}, so every destructive action is audited.
 */
class ArchitectureIT {

  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));

  private static final String PASS = "dev.relayer.store.pass..";
  private static final String STORE_INTERNAL = "dev.relayer.store.internal..";
  private static final String DISPATCH_INTERNAL = "dev.relayer.dispatch.internal..";

  private static final Set<String> CHANGING_STEPS =
      Set.of("retryHead", "moveHeadToDead", "release", "replayRun", "purgeRun");

  private static JavaClasses classes;

  /** The main classes every module of this build compiled, and the examples'. */
  @BeforeAll
  static void importTheModules() throws IOException {
    List<Path> compiled = new ArrayList<>();
    for (Path parent : List.of(ROOT, ROOT.resolve("examples"))) {
      try (Stream<Path> modules = Files.list(parent)) {
        modules
            .map(m -> m.resolve("target/classes"))
            .filter(Files::isDirectory)
            .sorted()
            .forEach(compiled::add);
      }
    }
    classes = new ClassFileImporter().importPaths(compiled);
  }

  @Test
  void theClassesOfEveryPublishedModuleAreRead() {
    assertThat(classes.stream().map(JavaClass::getPackageName).distinct())
        .as("packages read")
        .contains(
            "dev.relayer.api",
            "dev.relayer.store",
            "dev.relayer.store.pass",
            "dev.relayer.dispatch",
            "dev.relayer.cli",
            "dev.relayer.micrometer",
            "dev.relayer.opentelemetry",
            "dev.relayer.spring.boot",
            "dev.relayer.testkit",
            "dev.relayer.transport.rabbitmq",
            "dev.relayer.transport.kafka",
            "dev.relayer.transport.nats",
            "dev.relayer.inbox",
            "dev.relayer.jackson",
            "dev.relayer.spring.modulith");
  }

  @Test
  void applicationFacingModulesReachNeitherThePassNorAnInternalPackage() {
    noClasses()
        .that(applicationFacing())
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(PASS, STORE_INTERNAL, DISPATCH_INTERNAL)
        .because("the pass and internal packages serve relayer-dispatch only")
        .check(classes);
  }

  @Test
  void theStoresFaceNeverReachesThePassPackage() {
    noClasses()
        .that()
        .resideInAPackage("dev.relayer.store")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(PASS)
        .check(classes);
  }

  @Test
  void theRenderingMachineryDependsOnNeitherTheFaceNorThePasses() {
    noClasses()
        .that()
        .resideInAPackage(STORE_INTERNAL)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.relayer.store", PASS)
        .check(classes);
  }

  @Test
  void onlyTheOperatorTakesTheStepsThatChangeDeadRowsOrParkedKeys() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.relayer.store.ops")
        .and()
        .doNotHaveFullyQualifiedName("dev.relayer.dispatch.RelayerOperator")
        .should()
        .callMethodWhere(
            DescribedPredicate.describe(
                "a step of StoreOperations that changes rows",
                call ->
                    call.getTargetOwner().getName().equals("dev.relayer.store.ops.StoreOperations")
                        && CHANGING_STEPS.contains(call.getName())))
        .because("every such step writes its audit row, and RelayerOperator names the operator")
        .check(classes);
  }

  @Test
  void theStoresPackagesHaveNoCycle() {
    slices().matching("dev.relayer.store.(*)..").should().beFreeOfCycles().check(classes);
  }

  @Test
  void theDispatchApiTakesAndGivesNoPassOrInternalType() {
    members()
        .that()
        .areDeclaredInClassesThat()
        .resideInAPackage("dev.relayer.dispatch")
        .and()
        .haveModifier(JavaModifier.PUBLIC)
        .should(notExpose(PASS, STORE_INTERNAL, DISPATCH_INTERNAL))
        .check(classes);
  }

  /** The README's and the docs' Java blocks are code an application copies. */
  @Test
  void noJavaBlockOfTheGuideNamesThePassOrAnInternalPackage() throws IOException {
    List<Path> guide = new ArrayList<>();
    guide.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(f -> f.toString().endsWith(".md")).forEach(guide::add);
    }
    List<String> naming = new ArrayList<>();
    for (Path file : guide) {
      String java = javaBlocks(Files.readString(file, UTF_8));
      for (String pkg : List.of("dev.relayer.store.pass", "dev.relayer.store.internal")) {
        if (java.contains(pkg)) {
          naming.add(ROOT.relativize(file) + " names " + pkg);
        }
      }
    }
    assertThat(guide).hasSizeGreaterThan(5);
    assertThat(naming).isEmpty();
  }

  private static DescribedPredicate<JavaClass> applicationFacing() {
    return DescribedPredicate.not(
            resideInAPackage("dev.relayer.store..")
                .or(resideInAPackage("dev.relayer.dispatch.."))
                .or(resideInAPackage("dev.relayer.bench..")))
        .as("classes of an application-facing module");
  }

  private static ArchCondition<JavaMember> notExpose(String... packages) {
    return new ArchCondition<>("take or give no type of " + String.join(", ", packages)) {
      @Override
      public void check(JavaMember member, ConditionEvents events) {
        List<JavaClass> types = new ArrayList<>();
        if (member instanceof JavaCodeUnit unit) {
          types.add(unit.getRawReturnType());
          types.addAll(unit.getRawParameterTypes());
        } else if (member instanceof JavaField field) {
          types.add(field.getRawType());
        }
        for (JavaClass type : types) {
          if (resideInAnyPackage(packages).test(type)) {
            events.add(
                SimpleConditionEvent.violated(
                    member, member.getFullName() + " exposes " + type.getName()));
          }
        }
      }
    };
  }

  private static String javaBlocks(String markdown) {
    StringBuilder java = new StringBuilder();
    boolean inJava = false;
    for (String line : markdown.split("\n", -1)) {
      if (line.startsWith("```")) {
        inJava = !inJava && line.strip().equals("```java");
      } else if (inJava) {
        java.append(line).append('\n');
      }
    }
    return java.toString();
  }
}
