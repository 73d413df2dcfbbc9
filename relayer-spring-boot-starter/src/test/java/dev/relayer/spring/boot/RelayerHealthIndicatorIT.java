package dev.relayer.spring.boot;

import static dev.relayer.spring.boot.StarterFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.support.TransactionTemplate;

/** The {@code relayer} health indicator reports Relayer's health check: status and details. */
class RelayerHealthIndicatorIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  @Test
  void relayerThatDeliveredIsUpWithTheReportsDetails() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .run(
            context -> {
              assertThat(context).hasBean("relayerHealthIndicator");
              InMemoryTransport memory = context.getBean(InMemoryTransport.class);
              enqueue(context, 1);
              await().atMost(Duration.ofSeconds(5)).until(() -> memory.deliveries().size() == 1);

              Health health = context.getBean(RelayerHealthIndicator.class).health();

              assertThat(health.getStatus()).isEqualTo(Status.UP);
              Map<String, Object> details = health.getDetails();
              assertThat(details)
                  .containsEntry("eligible", 0L)
                  .containsEntry("retrying", 0L)
                  .containsEntry("neverHandedOff", 0L)
                  .containsEntry("parkedKeys", 0L)
                  .containsEntry("deadRows", 0L)
                  .containsEntry("deadRowsLastHour", 0L)
                  .containsEntry("reasons", List.of())
                  .containsKeys("at", "leases", "transports")
                  .doesNotContainKeys("oldestEligibleAge", "oldestPendingAge");
              assertThat(details.get("transports"))
                  .isEqualTo(Map.of("memory", Map.of("succeeded", 1L, "failed", 0L)));
            });
  }

  @Test
  void backlogFromTheThresholdsIsDegradedThenDown() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(
            // Only writes: the rows stay eligible.
            "relayer.dispatch.enabled=false",
            "relayer.external-transports=memory",
            "relayer.health.degraded-at=2",
            "relayer.health.unhealthy-at=4")
        .run(
            context -> {
              RelayerHealthIndicator indicator = context.getBean(RelayerHealthIndicator.class);
              enqueue(context, 1);
              assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

              enqueue(context, 1);
              Health degraded = indicator.health();
              assertThat(degraded.getStatus()).isEqualTo(RelayerHealthIndicator.DEGRADED);
              assertThat(degraded.getStatus().getCode()).isEqualTo("DEGRADED");
              assertThat(degraded.getDetails()).containsEntry("eligible", 2L);
              assertThat((List<?>) degraded.getDetails().get("reasons")).hasSize(1);
              assertThat(degraded.getDetails()).containsKey("oldestEligibleAge");

              enqueue(context, 2);
              Health down = indicator.health();
              assertThat(down.getStatus()).isEqualTo(Status.DOWN);
              assertThat(down.getDetails()).containsEntry("eligible", 4L);
            });
  }

  @Test
  void aDegradedRelayerReportsTheStatusSetByDegradedStatus() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(
            // Only writes: the rows stay eligible.
            "relayer.dispatch.enabled=false",
            "relayer.external-transports=memory",
            "relayer.health.degraded-at=1",
            "relayer.health.unhealthy-at=4",
            "relayer.health.degraded-status=out-of-service")
        .run(
            context -> {
              enqueue(context, 1);
              Health degraded = context.getBean(RelayerHealthIndicator.class).health();
              assertThat(degraded.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
              assertThat((List<?>) degraded.getDetails().get("reasons"))
                  .singleElement()
                  .asString()
                  .contains("degradedAt=1");
            });
  }

  @Test
  void failingThresholdsAndABlankDegradedStatusAreBoundAndChecked() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(
            "relayer.health.failing-degraded-at=5",
            "relayer.health.failing-age-degraded-at=2m",
            "relayer.health.degraded-status= ")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "relayer.health.failing-degraded-at and relayer.health.failing-unhealthy-at"
                            + " are set together")
                    .hasMessageContaining(
                        "relayer.health.failing-age-degraded-at and"
                            + " relayer.health.failing-age-unhealthy-at are set together")
                    .hasMessageContaining("relayer.health.degraded-status must not be blank"));
  }

  @Test
  void aReadStoppedAtTheRowLimitIsDownAndSaysSo() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(
            // Only writes: the rows stay eligible.
            "relayer.dispatch.enabled=false",
            "relayer.external-transports=memory",
            "relayer.health.degraded-at=3",
            "relayer.health.unhealthy-at=5",
            "relayer.health.row-limit=6")
        .run(
            context -> {
              RelayerHealthIndicator indicator = context.getBean(RelayerHealthIndicator.class);
              enqueue(context, 5);
              Health whole = indicator.health();
              assertThat(whole.getStatus()).isEqualTo(Status.DOWN);
              assertThat(whole.getDetails()).containsEntry("rowLimitReached", false);

              enqueue(context, 1);
              Health stopped = indicator.health();
              assertThat(stopped.getStatus()).isEqualTo(Status.DOWN);
              assertThat(stopped.getDetails())
                  .containsEntry("rowLimitReached", true)
                  .containsEntry("eligible", 6L);
              assertThat((List<?>) stopped.getDetails().get("reasons"))
                  .singleElement()
                  .asString()
                  .contains("rowLimit=6");
            });
  }

  @Test
  void healthIndicatorTurnedOffIsNotCreated() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues("management.health.relayer.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(Relayer.class);
              assertThat(context).doesNotHaveBean(RelayerHealthIndicator.class);
            });
  }

  private static void enqueue(ApplicationContext context, int count) {
    Relayer relayer = context.getBean(Relayer.class);
    DSLContext dsl = context.getBean(DSLContext.class);
    context
        .getBean(TransactionTemplate.class)
        .executeWithoutResult(
            status -> {
              for (int i = 0; i < count; i++) {
                relayer.store().enqueue(dsl, message("backlog"));
              }
            });
  }
}
