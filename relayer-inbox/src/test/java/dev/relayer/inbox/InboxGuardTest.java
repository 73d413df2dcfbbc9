package dev.relayer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.util.Map;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

class InboxGuardTest {

  @Test
  void aGuardNeedsAStoreADslContextAndAConsumerNameAndSaysEachThatIsMissing() {
    assertThatThrownBy(() -> InboxGuard.create(null, null, " "))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "store must not be null",
                        "dsl must not be null",
                        "consumer must not be blank"));
    assertThat(
            InboxGuard.create(
                    RelayerStore.create(StoreOptions.defaults()),
                    DSL.using(SQLDialect.POSTGRES),
                    "billing")
                .consumer())
        .isEqualTo("billing");
  }

  @Test
  void aMessageIdIsReadFromItsTextAndAMissingOrMalformedOneSaysWhereItWasLooked() {
    UUID id = UUID.randomUUID();
    assertThat(IncomingMessage.parseMessageId(" " + id + " ", "AMQP message-id")).isEqualTo(id);
    assertThatThrownBy(() -> IncomingMessage.parseMessageId(null, "AMQP message-id"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the delivery has no AMQP message-id: not a Relayer message");
    assertThatThrownBy(() -> IncomingMessage.parseMessageId("order-42", "Kafka header x"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Kafka header x 'order-42' is not a UUID");
    assertThatThrownBy(() -> new IncomingMessage(new UUID(0, 0), "t", null, Map.of(), new byte[0]))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("nil UUID");
  }
}
