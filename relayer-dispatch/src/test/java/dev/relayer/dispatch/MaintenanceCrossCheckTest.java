package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/** Maintenance options that cannot work with the dispatcher they run beside are refused. */
class MaintenanceCrossCheckTest {

  private final RelayerDispatcher dispatcher =
      RelayerDispatcher.builder(
              RelayerStore.create(StoreOptions.defaults()), DSL.using(SQLDialect.POSTGRES))
          .transport(InMemoryTransport.named("memory"))
          .options(
              DispatchOptions.builder()
                  .sendTimeout(Duration.ofSeconds(10))
                  .claimDuration(Duration.ofSeconds(30))
                  .build())
          .build();

  @Test
  void aSweeperClaimThatLeavesNoRoomForTheSendTimeoutIsRefusedNamingBothOptions() {
    for (Duration claim : new Duration[] {Duration.ofSeconds(5), Duration.ofMillis(10_999)}) {
      assertThatThrownBy(
              () ->
                  RelayerMaintenance.create(
                      dispatcher, MaintenanceOptions.builder().claimDuration(claim).build()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("maintenance claimDuration")
          .hasMessageContaining("sendTimeout (10s)");
    }
  }

  @Test
  void aSweeperClaimOfTheSendTimeoutPlusOneSecondIsAccepted() throws Exception {
    try (RelayerMaintenance maintenance =
        RelayerMaintenance.create(
            dispatcher,
            MaintenanceOptions.builder().claimDuration(Duration.ofSeconds(11)).build())) {
      assertThat(maintenance).isNotNull();
    }
  }
}
