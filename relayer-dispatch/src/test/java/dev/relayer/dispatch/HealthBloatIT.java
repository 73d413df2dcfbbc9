package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.schema.SchemaNames;
import dev.relayer.store.NewMessage;
import dev.relayer.store.health.HorizonHolder;
import dev.relayer.testkit.HeldSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The health report's dead tuples and xmin horizon, on a real PostgreSQL. */
class HealthBloatIT {

  DispatchFixture fx;
  RelayerHealth health;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(4);
    health = new RelayerHealth(fx.store, 10, 20, Clock.systemUTC());
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  @Test
  void reportShowsTheAgeAndPidOfARepeatableReadTransactionHeldOnAnotherConnection()
      throws Exception {
    try (HeldSnapshot pin =
        HeldSnapshot.take(fx.database.connect(), "health-pin", "public.relayer_outbox")) {
      int pid = pin.pid();
      // Each committed enqueue after the snapshot ages it by at least one transaction id.
      for (int i = 0; i < 5; i++) {
        fx.store.enqueue(fx.dsl, message("after-the-pin"));
      }

      HealthReport report = health.check(fx.dsl);

      HorizonHolder.Session held =
          report.xminHorizon().holders().stream()
              .filter(h -> h instanceof HorizonHolder.Session s && s.pid() == pid)
              .map(HorizonHolder.Session.class::cast)
              .findFirst()
              .orElseThrow(() -> new AssertionError("pid " + pid + " not in " + report));
      assertThat(held.xminAge()).isGreaterThanOrEqualTo(5);
      assertThat(held.state()).contains("idle in transaction");
      assertThat(held.xactStart()).isPresent();
      assertThat(report.xminHorizon().oldest().orElseThrow().xminAge())
          .isGreaterThanOrEqualTo(held.xminAge());
    }
  }

  @Test
  void reportShowsDeadTuplesOfTheOutboxAfterDeletes() {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      messages.add(message("to-delete"));
    }
    fx.store.enqueue(fx.dsl, messages);
    int deleted = fx.dsl.deleteFrom(DSL.table(DSL.name("public", "relayer_outbox"))).execute();
    assertThat(deleted).isEqualTo(120);

    AtomicReference<HealthReport> last = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              last.set(health.check(fx.dsl));
              return last.get().table(SchemaNames.OUTBOX).orElseThrow().deadTuples() >= 120;
            });
    HealthReport report = last.get();
    assertThat(report.table(SchemaNames.OUTBOX).orElseThrow().liveTuples()).isZero();
    assertThat(report.table(SchemaNames.INBOX).orElseThrow().deadTuples()).isZero();
    assertThat(report.table(SchemaNames.OUTBOX_DEAD).orElseThrow().deadTuples()).isZero();
    assertThat(report.tables()).hasSize(4);
  }
}
