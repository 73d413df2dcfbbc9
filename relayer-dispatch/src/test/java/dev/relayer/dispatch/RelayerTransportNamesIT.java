package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Enqueues through a {@link Relayer} on a real PostgreSQL name transports the Relayer knows: those
 * it registers, or those it names as delivered by other instances. Nothing is started: the check
 * holds whether or not the Relayer runs.
 */
class RelayerTransportNamesIT {

  private static final SchemaOptions SCHEMA = SchemaOptions.of("public", "names_");

  TestDatabase db;
  DSLContext dsl;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private Relayer.Builder relayer() {
    return Relayer.builder(db.dataSource()).prefix(SCHEMA.tablePrefix());
  }

  private static NewMessage to(String transport) {
    return NewMessage.builder()
        .transport(transport)
        .destination("orders")
        .messageType("OrderPlaced")
        .body("{}".getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private int outboxRows() {
    return dsl.fetchCount(DSL.table(DSL.name("public", "names_outbox")));
  }

  @Test
  void anEnqueueToATransportNoOneHereRegistersFailsAtOnceNamingTheKnownOnesAndWritesNothing() {
    try (Relayer relayer =
        relayer()
            .transport(InMemoryTransport.named("memory"))
            .transport(InMemoryTransport.named("audit"))
            .build()) {
      assertThatThrownBy(() -> relayer.store().enqueue(dsl, to("rabbitmq")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("transport 'rabbitmq' is not known to this Relayer")
          .hasMessageContaining("known: 'audit', 'memory'");
      assertThatThrownBy(
              () -> relayer.store().enqueue(dsl, List.of(to("memory"), to("kafka"), to("audit"))))
          .as("one unknown name among known ones refuses the whole call")
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("messages[1]: transport 'kafka'");
      assertThat(outboxRows()).isZero();

      relayer.store().enqueue(dsl, List.of(to("memory"), to("audit")));
      assertThat(outboxRows()).isEqualTo(2);
    }
  }

  @Test
  void aWriterOnlyRelayerRefusesEveryTransportUntilItNamesThoseOtherInstancesDeliver() {
    try (Relayer writer = relayer().build()) {
      assertThatThrownBy(() -> writer.store().enqueue(dsl, to("rabbitmq")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("registers no transport")
          .hasMessageContaining("externalTransports")
          .hasMessageContaining("acceptAnyTransport()");
    }
    assertThat(outboxRows()).isZero();

    try (Relayer writer = relayer().externalTransports("rabbitmq").build()) {
      writer.store().enqueue(dsl, to("rabbitmq"));
      assertThatThrownBy(() -> writer.store().enqueue(dsl, to("rabbit")))
          .as("a typo is still caught")
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("transport 'rabbit' is not known")
          .hasMessageContaining("known: 'rabbitmq'");
    }
    assertThat(outboxRows()).isEqualTo(1);
  }

  @Test
  void acceptAnyTransportWritesRowsForEveryNameAsTheExplicitOptOut() {
    try (Relayer writer = relayer().acceptAnyTransport().build()) {
      writer.store().enqueue(dsl, List.of(to("rabbitmq"), to("anything-at-all")));
    }
    assertThat(outboxRows()).isEqualTo(2);
  }

  @Test
  void externalNamesThatAreBlankRegisteredHereOrCombinedWithAcceptAnyTransportAreRefused() {
    assertThatThrownBy(
            () ->
                relayer()
                    .transport(InMemoryTransport.named("memory"))
                    .externalTransports("memory", " ")
                    .acceptAnyTransport()
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e ->
                assertThat(((InvalidInputException) e).problems())
                    .anySatisfy(p -> assertThat(p).contains("name 2 of 2 is blank"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .contains(
                                    "'memory' is registered here and named in"
                                        + " externalTransports"))
                    .anySatisfy(p -> assertThat(p).contains("acceptAnyTransport(): choose one")));
  }
}
