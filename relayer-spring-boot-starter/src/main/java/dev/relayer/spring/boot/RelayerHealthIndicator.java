package dev.relayer.spring.boot;

import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.HealthStatus;
import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.TransportSends;
import dev.relayer.store.LeaseState;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code relayer} health indicator: {@link Relayer#health()} as a Spring Boot {@link Health}.
 *
 * <p>Status: {@code HEALTHY} is {@link Status#UP}; {@code DEGRADED} is the status {@link #DEGRADED}
 * (code {@code DEGRADED}, which Spring Boot answers with HTTP 200 unless {@code
 * management.endpoint.health.status.http-mapping} says otherwise); {@code UNHEALTHY} is {@link
 * Status#DOWN}; a check that cannot run (database unreachable, tables missing) is {@link
 * Status#DOWN} with the error. Details: the reasons, the counts and ages of the report (ages as
 * ISO-8601 durations, absent when there is no such row), the leases by name, and this process's
 * sends over the last minute per transport that sent in it.
 */
public final class RelayerHealthIndicator implements HealthIndicator {

  /** The status of a degraded Relayer: work is late or a transport fails, nothing is lost. */
  public static final Status DEGRADED = new Status("DEGRADED");

  private final Relayer relayer;

  /** An indicator over {@code relayer}. */
  public RelayerHealthIndicator(Relayer relayer) {
    this.relayer = relayer;
  }

  @Override
  public Health health() {
    HealthReport report;
    try {
      report = relayer.health();
    } catch (RuntimeException e) {
      return Health.down(e).build();
    }
    Health.Builder health = Health.status(status(report.status()));
    health.withDetail("reasons", report.reasons());
    health.withDetail("at", report.at().toString());
    health.withDetail("eligible", report.eligible());
    age(health, "oldestEligibleAge", report.oldestEligibleAge());
    age(health, "oldestPendingAge", report.oldestPendingAge());
    health.withDetail("retrying", report.retrying());
    age(health, "oldestRetryingAge", report.oldestRetryingAge());
    health.withDetail("neverHandedOff", report.neverHandedOff());
    health.withDetail("parkedKeys", report.parkedKeys());
    age(health, "oldestParkedAge", report.oldestParkedAge());
    health.withDetail("deadRows", report.deadRows());
    health.withDetail("deadRowsLastHour", report.deadRowsLastHour());
    Map<String, Map<String, String>> leases = new LinkedHashMap<>();
    for (LeaseState lease : report.leases()) {
      leases.put(
          lease.name(), Map.of("owner", lease.owner(), "expiresAt", lease.expiresAt().toString()));
    }
    health.withDetail("leases", leases);
    Map<String, Map<String, Object>> transports = new LinkedHashMap<>();
    report.transports().values().stream()
        .sorted((a, b) -> a.transport().compareTo(b.transport()))
        .forEach(sends -> transports.put(sends.transport(), sends(sends)));
    health.withDetail("transports", transports);
    return health.build();
  }

  private static Status status(HealthStatus status) {
    return switch (status) {
      case HEALTHY -> Status.UP;
      case DEGRADED -> DEGRADED;
      case UNHEALTHY -> Status.DOWN;
    };
  }

  private static void age(Health.Builder health, String name, Optional<Duration> age) {
    age.ifPresent(a -> health.withDetail(name, a.toString()));
  }

  private static Map<String, Object> sends(TransportSends sends) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("succeeded", sends.succeeded());
    details.put("failed", sends.failed());
    sends.failingSince().ifPresent(at -> details.put("failingSince", at.toString()));
    sends.lastError().ifPresent(error -> details.put("lastError", error));
    sends
        .lastFailedDestination()
        .ifPresent(destination -> details.put("lastFailedDestination", destination));
    return details;
  }
}
