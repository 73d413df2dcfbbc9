package dev.relayer.spring.boot;

import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.HealthStatus;
import dev.relayer.dispatch.Relayer;
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
    return Health.status(status(report.status()))
        .withDetails(HealthReportDetails.of(report))
        .build();
  }

  private static Status status(HealthStatus status) {
    return switch (status) {
      case HEALTHY -> Status.UP;
      case DEGRADED -> DEGRADED;
      case UNHEALTHY -> Status.DOWN;
    };
  }
}
