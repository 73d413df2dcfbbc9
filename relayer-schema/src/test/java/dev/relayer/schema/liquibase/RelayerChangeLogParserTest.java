package dev.relayer.schema.liquibase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import liquibase.ChecksumVersion;
import liquibase.changelog.ChangeLogParameters;
import liquibase.changelog.ChangeSet;
import liquibase.changelog.DatabaseChangeLog;
import liquibase.exception.ChangeLogParseException;
import liquibase.parser.ChangeLogParserFactory;
import liquibase.parser.core.xml.XMLChangeLogSAXParser;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.resource.ResourceAccessor;
import org.junit.jupiter.api.Test;

class RelayerChangeLogParserTest {

  private static final String CHANGELOG = RelayerChangeLogParser.CHANGELOG;

  private final ResourceAccessor resources = new ClassLoaderResourceAccessor();

  private static ChangeLogParameters parameters(String schema, String prefix) {
    ChangeLogParameters parameters = new ChangeLogParameters();
    parameters.set("relayer.schema", schema);
    parameters.set("relayer.prefix", prefix);
    return parameters;
  }

  @Test
  void liquibasePicksItForRelayersChangelogOnly() throws Exception {
    ChangeLogParserFactory factory = ChangeLogParserFactory.getInstance();

    assertThat(factory.getParser(CHANGELOG, resources)).isInstanceOf(RelayerChangeLogParser.class);
    assertThat(factory.getParser("classpath:/" + CHANGELOG, resources))
        .isInstanceOf(RelayerChangeLogParser.class);
    assertThat(factory.getParser("classpath:" + CHANGELOG, resources))
        .isInstanceOf(RelayerChangeLogParser.class);
    assertThat(factory.getParser("db/changelog/app/db.changelog-app.xml", resources))
        .isExactlyInstanceOf(XMLChangeLogSAXParser.class);
    assertThat(factory.getParser("mydb/changelog/relayer/db.changelog-relayer.xml", resources))
        .isExactlyInstanceOf(XMLChangeLogSAXParser.class);
  }

  @Test
  void selfReferencingValuesAreRefusedBeforeLiquibaseExpandsThem() {
    assertThatThrownBy(
            () ->
                new RelayerChangeLogParser()
                    .parse(CHANGELOG, parameters("x${relayer.schema}", "x_"), resources))
        .isInstanceOf(ChangeLogParseException.class)
        .hasMessage(
            "relayer.schema/relayer.prefix: relayer.schema is 'x${relayer.schema}': it must not"
                + " contain '${' (Liquibase would expand it as a changelog parameter, and the"
                + " tables would not be named as given)");
    assertThatThrownBy(
            () ->
                new RelayerChangeLogParser()
                    .parse(
                        CHANGELOG, parameters("${relayer.prefix}", "${relayer.schema}"), resources))
        .isInstanceOf(ChangeLogParseException.class)
        .hasMessageContaining("relayer.schema is '${relayer.prefix}': it must not contain '${'")
        .hasMessageContaining("relayer.prefix is '${relayer.schema}': it must not contain '${'");
  }

  @Test
  void validValuesGiveTheChangesetIdAndChecksumOfLiquibasesOwnParser() throws Exception {
    DatabaseChangeLog relayers =
        new RelayerChangeLogParser()
            .parse(CHANGELOG, parameters("my\"Schema X", "Ü-x_"), resources);
    DatabaseChangeLog liquibases =
        new XMLChangeLogSAXParser().parse(CHANGELOG, parameters("my\"Schema X", "Ü-x_"), resources);

    assertThat(relayers.getChangeSets()).hasSize(4);
    assertThat(relayers.getChangeSets())
        .extracting(ChangeSet::getId)
        .containsExactly(
            "relayer-1-create-tables schema=my\"Schema X prefix=Ü-x_",
            "relayer-2-operations schema=my\"Schema X prefix=Ü-x_",
            "relayer-3-lane-key-index schema=my\"Schema X prefix=Ü-x_",
            "relayer-4-idempotency-keys schema=my\"Schema X prefix=Ü-x_");
    for (int i = 0; i < 4; i++) {
      ChangeSet changeSet = relayers.getChangeSets().get(i);
      assertThat(changeSet.getAuthor()).isEqualTo("relayer");
      assertThat(changeSet.generateCheckSum(ChecksumVersion.latest()))
          .isEqualTo(liquibases.getChangeSets().get(i).generateCheckSum(ChecksumVersion.latest()));
    }
  }

  /**
   * Installs that ran changeset 1 before version 2 existed hold this checksum in DATABASECHANGELOG:
   * if it changed, Liquibase would refuse to upgrade them.
   */
  @Test
  void changesetOneKeepsTheChecksumItHadBeforeVersionTwo() throws Exception {
    DatabaseChangeLog changeLog =
        new RelayerChangeLogParser()
            .parse(CHANGELOG, parameters("messaging", "orders_"), resources);

    assertThat(changeLog.getChangeSets().get(0).generateCheckSum(ChecksumVersion.latest()))
        .hasToString("9:82706edb1090a93c164f8aaf07010435");
  }

  /**
   * Installs that ran changeset 2 before version 3 existed hold this checksum in DATABASECHANGELOG:
   * if it changed, Liquibase would refuse to upgrade them to version 3.
   */
  @Test
  void changesetTwoKeepsTheChecksumItHadBeforeVersionThree() throws Exception {
    DatabaseChangeLog changeLog =
        new RelayerChangeLogParser()
            .parse(CHANGELOG, parameters("messaging", "orders_"), resources);

    assertThat(changeLog.getChangeSets().get(1).generateCheckSum(ChecksumVersion.latest()))
        .hasToString("9:767031911d7f63b1a170ffd19805c7ed");
  }

  /**
   * Installs that ran changeset 3 before version 4 existed hold this checksum in DATABASECHANGELOG:
   * if it changed, Liquibase would refuse to upgrade them to version 4.
   */
  @Test
  void changesetThreeKeepsTheChecksumItHadBeforeVersionFour() throws Exception {
    DatabaseChangeLog changeLog =
        new RelayerChangeLogParser()
            .parse(CHANGELOG, parameters("messaging", "orders_"), resources);

    assertThat(changeLog.getChangeSets().get(2).generateCheckSum(ChecksumVersion.latest()))
        .hasToString("9:0adf595e6ff082dd80df77e7707bab11");
  }
}
