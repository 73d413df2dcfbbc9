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
 * <p>Status: {@code HEALTHY} is {@link Status#UP}; {@code DEGRADED} is the status set by {@code
 * relayer.health.degraded-status}, by default {@link #DEGRADED} (code {@code DEGRADED}). Spring
 * Boot's aggregate status ignores a code its {@code management.endpoint.health.status.order} does
 * not list, so by default {@code /actuator/health} stays {@code UP} while this component says
 * {@code DEGRADED}; list it (for example {@code down,out-of-service,degraded,up,unknown}) to make
 * the aggregate say {@code DEGRADED} (HTTP 200 unless {@code
 * management.endpoint.health.status.http-mapping} says otherwise), or set the property to {@code
 * OUT_OF_SERVICE} to take the application out of service. {@code UNHEALTHY} is {@link Status#DOWN};
 * a check that cannot run (database unreachable, tables missing) is {@link Status#DOWN} with the
 * error. Details: the reasons, the counts and ages of the report (ages as ISO-8601 durations,
 * absent when there is no such row), the leases by name, and this process's sends over the last
 * minute per transport that sent in it.
 */
public final class RelayerHealthIndicator implements HealthIndicator {

  /** The status of a degraded Relayer: work is late or a transport fails, nothing is lost. */
  public static final Status DEGRADED = new Status("DEGRADED");

  private final Relayer relayer;
  private final Status degraded;

  /** An indicator over {@code relayer} that reports a degraded Relayer as {@link #DEGRADED}. */
  public RelayerHealthIndicator(Relayer relayer) {
    this(relayer, DEGRADED);
  }

  /** An indicator over {@code relayer} that reports a degraded Relayer as {@code degraded}. */
  public RelayerHealthIndicator(Relayer relayer, Status degraded) {
    this.relayer = relayer;
    this.degraded = degraded;
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

  private Status status(HealthStatus status) {
    return switch (status) {
      case HEALTHY -> Status.UP;
      case DEGRADED -> degraded;
      case UNHEALTHY -> Status.DOWN;
    };
  }
}
