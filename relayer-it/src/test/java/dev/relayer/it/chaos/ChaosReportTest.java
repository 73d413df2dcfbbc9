package dev.relayer.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.it.chaos.ChaosReport.Committed;
import dev.relayer.it.chaos.ChaosReport.Dead;
import dev.relayer.it.chaos.ChaosReport.Left;
import dev.relayer.it.chaos.DeliveryLog.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The chaos run's verdict: each broken promise is named, a clean run has none. */
class ChaosReportTest {

  private static final int MAX_ATTEMPTS = 8;

  private final UUID a1 = UUID.randomUUID();
  private final UUID a2 = UUID.randomUUID();
  private final UUID u = UUID.randomUUID();
  private final UUID poisonU = UUID.randomUUID();
  private final UUID poisonO = UUID.randomUUID();

  private final List<String> poisonSends = new ArrayList<>();

  private final List<Committed> committed =
      List.of(
          new Committed(a1, 1, "k-01", false),
          new Committed(u, 2, null, false),
          new Committed(a2, 3, "k-01", false),
          new Committed(poisonU, 4, null, true),
          new Committed(poisonO, 5, "poison-" + poisonO, true));

  @Test
  void aRunThatDeliveredEverythingInOrderWithOnlyThePoisonDeadOrParkedPasses() {
    ChaosReport report =
        report(
            deliveries(a1, u, u, a2),
            List.of(new Dead(poisonU, MAX_ATTEMPTS, ChaosReport.MAX_ATTEMPTS)),
            List.of(new Left(poisonO, "poison-" + poisonO, "parked", MAX_ATTEMPTS)));

    assertThat(report.problems()).isEmpty();
    assertThat(report.text()).contains("4 (3 distinct, 1 duplicates)").contains("verdict: PASS");
  }

  @Test
  void aLaterMessageOfAKeyArrivingFirstIsReordered() {
    ChaosReport report = report(deliveries(a2, u, a1, a2), poisonDead(), poisonParked());

    assertThat(report.problems())
        .singleElement()
        .asString()
        .startsWith("1 messages delivered before an earlier one of their key");
  }

  @Test
  void aCommittedMessageNeverDeliveredIsLostWhetherOrNotItsRowRemains() {
    List<Left> left = new ArrayList<>(poisonParked());
    left.add(new Left(a2, "k-01", "pending", 3));

    ChaosReport report = report(deliveries(a1), poisonDead(), left);

    assertThat(report.problems())
        .anyMatch(p -> p.startsWith("1 committed messages gone from the outbox"))
        .anyMatch(p -> p.startsWith("1 committed messages still in the outbox"))
        .anyMatch(p -> p.startsWith("1 rows left in the outbox besides parked poison"));
  }

  @Test
  void anOrdinaryMessageDeadOrPoisonNotDeadOrNotParkedIsAProblem() {
    ChaosReport report =
        report(
            deliveries(a1, a2),
            List.of(new Dead(u, 8, "gave up"), new Dead(poisonO, MAX_ATTEMPTS + 2, "crashed")),
            List.of(new Left(poisonU, null, "pending", 2)));

    assertThat(report.problems())
        .anyMatch(p -> p.startsWith("1 unordered poison messages not dead"))
        .anyMatch(p -> p.startsWith("2 other messages dead"))
        .anyMatch(p -> p.startsWith("1 ordered poison messages not parked"));
  }

  @Test
  void aPoisonMessageDeadForAnotherReasonThanItsAttemptsIsAProblem() {
    ChaosReport report =
        report(deliveries(a1, a2), List.of(new Dead(poisonU, 1, "rejected")), poisonParked());

    assertThat(report.problems())
        .anyMatch(p -> p.startsWith("1 poison messages dead for another reason than running out"));
  }

  @Test
  void aDeliveredPoisonMessageOrOneNeverCommittedIsAProblem() {
    ChaosReport report =
        report(deliveries(a1, u, a2, poisonU, UUID.randomUUID()), poisonDead(), poisonParked());

    assertThat(report.problems())
        .anyMatch(p -> p.startsWith("1 poison messages delivered"))
        .anyMatch(p -> p.startsWith("1 deliveries never committed"));
  }

  @Test
  void aPoisonMessageSentMoreThanMaxAttemptsAloneAndTwiceWithOthersIsAProblem() {
    for (int i = 0; i < MAX_ATTEMPTS + ChaosReport.SENDS_WITH_OTHERS + 1; i++) {
      poisonSends.add(poisonU.toString());
    }
    poisonSends.add(poisonO.toString());

    ChaosReport report = report(deliveries(a1, u, a2), poisonDead(), poisonParked());

    assertThat(report.problems())
        .singleElement()
        .asString()
        .startsWith("1 poison messages sent more than maxAttempts = 8 times alone and 2 with");
    assertThat(report.text()).contains("sent 11 times").contains("sent 1 times");
  }

  private List<Dead> poisonDead() {
    return List.of(new Dead(poisonU, 3, ChaosReport.MAX_ATTEMPTS));
  }

  private List<Left> poisonParked() {
    return List.of(new Left(poisonO, "poison-" + poisonO, "parked", 4));
  }

  private List<Delivery> deliveries(UUID... ids) {
    List<Delivery> deliveries = new ArrayList<>();
    for (UUID id : ids) {
      String key = null;
      for (Committed c : committed) {
        if (c.messageId().equals(id)) {
          key = c.orderingKey();
        }
      }
      deliveries.add(new Delivery(deliveries.size(), id, "OrderPlaced", key));
    }
    return deliveries;
  }

  private ChaosReport report(List<Delivery> deliveries, List<Dead> dead, List<Left> left) {
    ChaosSettings settings =
        new ChaosSettings(
            Duration.ofSeconds(90), Duration.ofMinutes(3), 3, 2, Duration.ofMillis(50), true, 1L);
    ChaosReport.Faults faults =
        new ChaosReport.Faults(1, 1, 1, 1, 1, 1, 3, 1, 4, 3, List.of(), List.of());
    return ChaosReport.of(
        new ChaosReport.Run(settings, Duration.ofSeconds(90), Duration.ofSeconds(5), true),
        committed,
        deliveries,
        dead,
        left,
        faults,
        poisonSends,
        MAX_ATTEMPTS);
  }
}
