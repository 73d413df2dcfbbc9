package dev.relayer.spring.boot;

import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.TransportSends;
import dev.relayer.store.health.LeaseState;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link HealthReport} as the details that the health indicator and the {@code relayer} endpoint
 * show: the reasons, the counts and ages (ISO-8601 durations, absent when there is no such row),
 * the leases by name, and the sends per transport.
 */
final class HealthReportDetails {

  private HealthReportDetails() {}

  static Map<String, Object> of(HealthReport report) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("reasons", report.reasons());
    details.put("at", report.at().toString());
    details.put("eligible", report.eligible());
    age(details, "oldestEligibleAge", report.oldestEligibleAge());
    age(details, "oldestPendingAge", report.oldestPendingAge());
    details.put("retrying", report.retrying());
    age(details, "oldestRetryingAge", report.oldestRetryingAge());
    details.put("neverHandedOff", report.neverHandedOff());
    details.put("rowLimitReached", report.rowLimitReached());
    details.put("parkedKeys", report.parkedKeys());
    age(details, "oldestParkedAge", report.oldestParkedAge());
    details.put("deadRows", report.deadRows());
    details.put("deadRowsLastHour", report.deadRowsLastHour());
    Map<String, Map<String, String>> leases = new LinkedHashMap<>();
    for (LeaseState lease : report.leases()) {
      leases.put(
          lease.name(), Map.of("owner", lease.owner(), "expiresAt", lease.expiresAt().toString()));
    }
    details.put("leases", leases);
    Map<String, Map<String, Object>> transports = new LinkedHashMap<>();
    report.transports().values().stream()
        .sorted((a, b) -> a.transport().compareTo(b.transport()))
        .forEach(sends -> transports.put(sends.transport(), sends(sends)));
    details.put("transports", transports);
    return details;
  }

  private static void age(Map<String, Object> details, String name, Optional<Duration> age) {
    age.ifPresent(a -> details.put(name, a.toString()));
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
