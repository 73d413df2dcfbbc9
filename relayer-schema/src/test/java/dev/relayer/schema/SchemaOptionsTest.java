package dev.relayer.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import org.junit.jupiter.api.Test;

class SchemaOptionsTest {

  /** The longest base name: a prefix may take the rest of the 63 bytes. */
  private static final String LONGEST_BASE = "outbox_dead_message_id_check";

  private static final int MAX_PREFIX_BYTES = 63 - LONGEST_BASE.length();

  @Test
  void defaultsArePublicAndRelayerPrefix() {
    SchemaOptions options = SchemaOptions.defaults();
    assertThat(options.schema()).isEqualTo("public");
    assertThat(options.tablePrefix()).isEqualTo("relayer_");
    assertThat(options.names().qualified(SchemaNames.OUTBOX))
        .isEqualTo("\"public\".\"relayer_outbox\"");
  }

  @Test
  void rejectsNullSchema() {
    assertThatThrownBy(() -> SchemaOptions.of(null, "relayer_"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("schema must not be null");
  }

  @Test
  void rejectsEmptySchema() {
    assertThatThrownBy(() -> SchemaOptions.of("", "relayer_"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("schema must not be empty");
  }

  @Test
  void rejectsABlankSchemaButKeepsSpacesAroundAVisibleName() {
    for (String blank : new String[] {" ", "   ", "\t", "\u3000", " \n "}) {
      assertThatThrownBy(() -> SchemaOptions.of(blank, "relayer_"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("must not be blank");
    }
    assertThat(SchemaOptions.of(" a ", "").names().qualified(SchemaNames.OUTBOX))
        .isEqualTo("\" a \".\"outbox\"");
  }

  @Test
  void rejectsSchemasStartingWithPgButNotOtherCases() {
    for (String reserved : new String[] {"pg_", "pg_catalog", "pg_toast", "pg_x y"}) {
      assertThatThrownBy(() -> SchemaOptions.of(reserved, "relayer_"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("schema \"" + reserved + "\" must not start with \"pg_\"");
    }
    assertThat(SchemaOptions.of("PG_x", "").schema()).isEqualTo("PG_x");
    assertThat(SchemaOptions.of("pg", "").schema()).isEqualTo("pg");
    assertThat(SchemaOptions.of("app", "pg_").tablePrefix()).isEqualTo("pg_");
  }

  @Test
  void rejectsNullPrefixButAllowsAnEmptyOne() {
    assertThatThrownBy(() -> SchemaOptions.of("public", null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("table prefix must not be null");

    SchemaOptions options = SchemaOptions.of("public", "");
    assertThat(options.tablePrefix()).isEmpty();
    assertThat(options.names().name(SchemaNames.OUTBOX)).isEqualTo("outbox");
    assertThat(options.names().qualified(SchemaNames.LEASES)).isEqualTo("\"public\".\"leases\"");
  }

  @Test
  void rejectsNulInPrefix() {
    assertThatThrownBy(() -> SchemaOptions.of("public", "a\0"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("NUL");
  }

  @Test
  void keepsOddSchemaAndPrefixExactly() {
    SchemaOptions options = SchemaOptions.of("my\"Schema X", "Ü-x_");
    assertThat(options.names().qualified(SchemaNames.OUTBOX_DEAD))
        .isEqualTo("\"my\"\"Schema X\".\"Ü-x_outbox_dead\"");
    assertThat(options.names().quoted("outbox_pending_idx"))
        .isEqualTo("\"Ü-x_outbox_pending_idx\"");
  }

  @Test
  void acceptsSchemaOf63BytesAndRejects64BytesOfTwoByteCharacters() {
    assertThat(SchemaOptions.of("é".repeat(31) + "a", "relayer_").schema()).hasSize(32);

    String tooLong = "é".repeat(32);
    assertThatThrownBy(() -> SchemaOptions.of(tooLong, "relayer_"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "schema \"" + tooLong + "\" is 64 bytes in UTF-8; PostgreSQL allows at most 63");
  }

  @Test
  void acceptsAPrefixThatBringsTheLongestIdentifierToExactly63Bytes() {
    assertThat(MAX_PREFIX_BYTES).isEqualTo(35);
    String prefix = "é".repeat(17) + "a";
    assertThat(Identifiers.byteLength(prefix)).isEqualTo(MAX_PREFIX_BYTES);

    SchemaOptions options = SchemaOptions.of("public", prefix);

    assertThat(Identifiers.byteLength(options.names().name(LONGEST_BASE))).isEqualTo(63);
  }

  @Test
  void rejectsAPrefixThatPushesAnIdentifierTo64BytesNamingThatIdentifier() {
    String prefix = "é".repeat(18);
    assertThat(Identifiers.byteLength(prefix)).isEqualTo(MAX_PREFIX_BYTES + 1);

    assertThatThrownBy(() -> SchemaOptions.of("public", prefix))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "identifier \""
                            + prefix
                            + LONGEST_BASE
                            + "\" is 64 bytes in UTF-8; PostgreSQL allows at most 63"));
  }

  @Test
  void listsEveryProblemAtOnce() {
    assertThatThrownBy(() -> SchemaOptions.of("", "x".repeat(40)))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.problems()).first().isEqualTo("schema must not be empty");
              // A 40-byte prefix leaves 23 bytes: the 12 base names longer than that fail, and the
              // prefix's problem names the longest of them and counts the others.
              assertThat(e.problems()).hasSize(2);
              assertThat(e.problems().get(1))
                  .contains("x".repeat(40) + LONGEST_BASE)
                  .contains("68 bytes")
                  .endsWith("(and 11 more identifiers with this prefix)");
            });
  }
}
