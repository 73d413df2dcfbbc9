package dev.relayer.jackson;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.message.MessageRoute;
import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.message.MessageTypes;
import dev.relayer.jackson.Events.CartUpdated;
import dev.relayer.jackson.Events.HalfRouted;
import dev.relayer.jackson.Events.InvoiceIssued;
import dev.relayer.jackson.Events.OrderPlaced;
import dev.relayer.jackson.Events.OrderShipped;
import dev.relayer.jackson.Events.PaymentTaken;
import dev.relayer.jackson.Events.TwoKeys;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Typed enqueue on a real PostgreSQL: {@link Relayer#publish} and {@link
 * Relayer#enqueue(DSLContext, Object, MessageRoute)} with {@link JacksonMessageSerializer} write
 * the row the annotation or the registration describes, and refuse what they cannot describe or
 * serialize before anything is written, leaving the application's transaction usable.
 */
class TypedEnqueueIT {

  private static final SchemaOptions SCHEMA = SchemaOptions.of("public", "typed_");

  static TestDatabase db;
  static DSLContext dsl;

  @BeforeAll
  static void database() {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    dsl.execute("create table orders (id text primary key)");
  }

  @AfterAll
  static void dropDatabase() {
    db.close();
  }

  @BeforeEach
  void empty() {
    dsl.execute("truncate typed_outbox, orders");
  }

  private static Relayer.Builder relayer() {
    return Relayer.builder(db.dataSource())
        .prefix(SCHEMA.tablePrefix())
        .externalTransports("memory", "kafka")
        .serializer(JacksonMessageSerializer.create());
  }

  private static List<Record> rows() {
    return List.copyOf(
        dsl.fetch(
            "select *, headers->>'content-type' as content_type from typed_outbox order by id"));
  }

  private static int outboxRows(DSLContext in) {
    return in.fetchCount(DSL.table(DSL.name("public", "typed_outbox")));
  }

  @Test
  void publishWritesTheTypeRouteOrderingKeyTenantBodyAndContentTypeTheAnnotationsGive() {
    try (Relayer relayer = relayer().build()) {
      relayer
          .dsl()
          .transaction(
              tx ->
                  relayer.publish(
                      tx.dsl(), new OrderPlaced("o-1", "acme", new BigDecimal("12.50"))));
    }

    Record row = rows().get(0);
    assertThat(row.get("message_type")).isEqualTo("order.placed");
    assertThat(row.get("transport")).isEqualTo("memory");
    assertThat(row.get("destination")).isEqualTo("orders");
    assertThat(row.get("ordering_key")).isEqualTo("o-1");
    assertThat(row.get("tenant_id")).isEqualTo("acme");
    assertThat(row.get("content_type")).isEqualTo("application/json");
    assertThat(new String((byte[]) row.get("body"), UTF_8))
        .isEqualTo("{\"orderId\":\"o-1\",\"tenant\":\"acme\",\"total\":12.50}");
  }

  @Test
  void aPublishedEventIsDeliveredAfterCommitAndReadsBackAsTheSameObject() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    OrderShipped shipped = new OrderShipped("o-7");
    try (Relayer relayer =
        Relayer.builder(db.dataSource())
            .prefix(SCHEMA.tablePrefix())
            .transport(memory)
            .serializer(JacksonMessageSerializer.create())
            .build()) {
      relayer.start();
      relayer
          .dsl()
          .transaction(tx -> relayer.enqueue(tx.dsl(), shipped, MessageRoute.to("memory", "ship")));

      await().atMost(Duration.ofSeconds(10)).until(() -> memory.deliveries().size() == 1);
    }

    InMemoryTransport.Delivery delivery = memory.deliveries().get(0);
    assertThat(delivery.destination()).isEqualTo("ship");
    assertThat(delivery.message().messageType()).isEqualTo("order.shipped");
    assertThat(delivery.message().headers()).containsEntry("content-type", "application/json");
    assertThat(
            JacksonMessageSerializer.create()
                .deserialize(delivery.message().body(), OrderShipped.class))
        .isEqualTo(shipped);
  }

  @Test
  void aRegisteredTypeAndRouteSendAClassWithoutAnnotationRoutedByTheEvent() {
    MessageTypes types =
        MessageTypes.builder()
            .register(
                PaymentTaken.class,
                "payment.taken",
                e -> MessageRoute.to("kafka", "payments").orderedBy(e.orderId()))
            .build();
    try (Relayer relayer = relayer().messageTypes(types).build()) {
      relayer.publish(dsl, new PaymentTaken("o-3", 250));
    }

    Record row = rows().get(0);
    assertThat(row.get("message_type")).isEqualTo("payment.taken");
    assertThat(row.get("transport")).isEqualTo("kafka");
    assertThat(row.get("destination")).isEqualTo("payments");
    assertThat(row.get("ordering_key")).isEqualTo("o-3");
  }

  @Test
  void aRouteGivenAtTheCallIsTheWholeRouteAndTheAnnotatedTypeStays() {
    try (Relayer relayer = relayer().build()) {
      relayer.enqueue(
          dsl,
          new OrderPlaced("o-1", "acme", BigDecimal.ONE),
          MessageRoute.to("kafka", "orders-v2"));
    }

    Record row = rows().get(0);
    assertThat(row.get("message_type")).isEqualTo("order.placed");
    assertThat(row.get("transport")).isEqualTo("kafka");
    assertThat(row.get("destination")).isEqualTo("orders-v2");
    assertThat(row.get("ordering_key")).as("the route given carries no key").isNull();
    assertThat(row.get("tenant_id")).isNull();
  }

  @Test
  void aClassWithoutTypeIsRefusedNamingItAndNeverSentUnderItsJavaName() {
    try (Relayer relayer = relayer().build()) {
      assertThatThrownBy(() -> relayer.publish(dsl, new PaymentTaken("o-1", 1)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("cannot enqueue dev.relayer.jackson.Events$PaymentTaken")
          .hasMessageContaining("no message type")
          .hasMessageContaining("@RelayerMessage")
          .hasMessageContaining("MessageTypes.builder().register(PaymentTaken.class");
      assertThatThrownBy(
              () ->
                  relayer.enqueue(
                      dsl, new PaymentTaken("o-1", 1), MessageRoute.to("memory", "payments")))
          .as("a route does not make up for a missing type")
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("no message type");
    }
    assertThat(outboxRows(dsl)).isZero();
  }

  @Test
  void aTypeWithoutRouteIsRefusedNamingTheThreeWaysToGiveOne() {
    try (Relayer relayer = relayer().build()) {
      assertThatThrownBy(() -> relayer.publish(dsl, new OrderShipped("o-1")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("cannot enqueue dev.relayer.jackson.Events$OrderShipped")
          .hasMessageContaining("it has no route")
          .hasMessageContaining("enqueue(dsl, event, route)");
      assertThatThrownBy(() -> relayer.publish(dsl, new HalfRouted("h")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("@RelayerMessage gives a transport without a destination");
      assertThatThrownBy(() -> relayer.publish(dsl, new TwoKeys("a", "b")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("@OrderingKey marks 2 methods");
      assertThatThrownBy(() -> relayer.publish(dsl, new CartUpdated(null)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("its @OrderingKey cartId() returned null");
    }
    assertThat(outboxRows(dsl)).isZero();
  }

  @Test
  void withoutASerializerTypedEnqueueIsRefusedNamingWhatToConfigure() {
    try (Relayer relayer =
        Relayer.builder(db.dataSource())
            .prefix(SCHEMA.tablePrefix())
            .externalTransports("memory")
            .build()) {
      assertThatThrownBy(() -> relayer.publish(dsl, new OrderPlaced("o-1", "acme", BigDecimal.ONE)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("no MessageSerializer is configured")
          .hasMessageContaining("serializer(JacksonMessageSerializer.create())");
    }
    assertThat(outboxRows(dsl)).isZero();
  }

  @Test
  void anUnknownTransportInTheAnnotationIsRefusedByTheTransportCheck() {
    try (Relayer relayer =
        Relayer.builder(db.dataSource())
            .prefix(SCHEMA.tablePrefix())
            .externalTransports("kafka")
            .serializer(JacksonMessageSerializer.create())
            .build()) {
      assertThatThrownBy(() -> relayer.publish(dsl, new OrderPlaced("o-1", "acme", BigDecimal.ONE)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("transport 'memory' is not known");
    }
    assertThat(outboxRows(dsl)).isZero();
  }

  @Test
  void anUnserializableEventFailsAtEnqueueAndTheApplicationsTransactionHoldsNoRowAndCommits() {
    AtomicReference<Throwable> refused = new AtomicReference<>();
    try (Relayer relayer = relayer().build()) {
      relayer
          .dsl()
          .transaction(
              tx -> {
                tx.dsl().execute("insert into orders values ('o-9')");
                relayer.enqueue(
                    tx.dsl(), new OrderShipped("o-9-before"), MessageRoute.to("memory", "s"));
                int before = outboxRows(tx.dsl());
                try {
                  relayer.publish(tx.dsl(), new InvoiceIssued());
                } catch (InvalidInputException e) {
                  refused.set(e);
                }
                // Still inside the transaction: the refused message left no row, and the
                // transaction is not aborted (this statement runs).
                assertThat(outboxRows(tx.dsl())).isEqualTo(before);
              });
    }

    assertThat(refused.get())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("cannot enqueue dev.relayer.jackson.Events$InvoiceIssued")
        .hasMessageContaining("JacksonMessageSerializer cannot serialize it")
        .hasMessageContaining("invoice number not assigned yet")
        .hasRootCauseInstanceOf(IllegalStateException.class);
    assertThat(dsl.fetchCount(DSL.table("orders"))).isEqualTo(1);
    assertThat(rows()).extracting(r -> r.get("message_type")).containsExactly("order.shipped");
  }

  @Test
  void aNullContextEventOrRouteIsRefusedNamingIt() {
    OrderPlaced event = new OrderPlaced("o-1", "acme", BigDecimal.ONE);
    try (Relayer relayer = relayer().build()) {
      assertThatThrownBy(() -> relayer.publish(null, event))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("dsl must not be null");
      assertThatThrownBy(() -> relayer.publish(dsl, null))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("event must not be null");
      assertThatThrownBy(() -> relayer.enqueue(dsl, event, null))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("route must not be null");
    }
    assertThat(outboxRows(dsl)).isZero();
  }

  @Test
  void aMessageTypesRegistrationWithProblemsListsEveryOne() {
    assertThatThrownBy(
            () ->
                MessageTypes.builder()
                    .register(PaymentTaken.class, " ")
                    .register(OrderShipped.class, "a")
                    .register(OrderShipped.class, "b")
                    .register(CartUpdated.class, "c", null)
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Events$PaymentTaken: message type must not be blank")
        .hasMessageContaining("Events$OrderShipped: registered twice")
        .hasMessageContaining("Events$CartUpdated: route must not be null");
  }
}
