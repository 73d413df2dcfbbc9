package dev.relayer.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chaos run of {@link ChaosRun}: real dispatcher and producer JVMs killed with SIGKILL and
 * restarted, the run's own PostgreSQL crashed and restarted, the transport to the real RabbitMQ
 * cut, poison messages that halt the JVM sending them; then nothing lost, nothing reordered, only
 * the poison dead or parked. {@code mvn verify} runs the short run (60 s of faults); {@code
 * -Drelayer.chaos.duration=PT20M} makes it a long one (see {@code docs/reliability.md}).
 */
class ChaosIT {

  /** Beyond the five-minute default: a long run lasts as long as its faults are set to. */
  @Test
  @Timeout(value = 3, unit = TimeUnit.HOURS)
  void underKillsCrashesOutagesAndPoisonNothingCommittedIsLostOrReorderedAndOnlyPoisonIsDead()
      throws Exception {
    ChaosSettings settings = ChaosSettings.fromSystemProperties();
    ChaosRun run = new ChaosRun(settings, ChaosRun.newRunDirectory());

    ChaosReport report = run.run();

    System.out.println(report.text());
    assertThat(report.problems()).as(report.text()).isEmpty();
    ChaosReport.Faults faults = report.faults();
    assertThat(faults.dispatcherKills()).as("dispatchers killed").isPositive();
    assertThat(faults.producerKills()).as("producers killed").isPositive();
    assertThat(faults.postgresRestarts()).as("PostgreSQL crashes").isPositive();
    assertThat(faults.transportCuts()).as("transport cuts").isPositive();
    if (settings.poison()) {
      assertThat(faults.poisonPlantedUnordered()).as("unordered poison").isPositive();
      assertThat(faults.poisonPlantedOrdered()).as("ordered poison").isPositive();
      assertThat(faults.dispatcherPoisonHalts() + faults.producerPoisonHalts())
          .as("JVMs halted by poison")
          .isPositive();
    }
  }
}
