package dev.relayer.spring.boot;

import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.Relayer;
import dev.relayer.store.ParkedKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code relayer} actuator endpoint, read-only: {@code GET /actuator/relayer} shows the status
 * of {@link Relayer#health()} ({@code HEALTHY}, {@code DEGRADED} or {@code UNHEALTHY}), the same
 * details as the {@code relayer} health indicator, every parked ordering key ({@link
 * dev.relayer.dispatch.RelayerOperator#parkedKeys()}) and whether the operator's actions are
 * exposed. {@link RelayerOperationsEndpoint} adds them when {@code
 * relayer.actuator.operations.enabled=true}.
 *
 * <p>Like every actuator endpoint it is served over HTTP only when exposed ({@code
 * management.endpoints.web.exposure.include=relayer}).
 */
@Endpoint(id = "relayer")
public class RelayerEndpoint {

  private final Relayer relayer;

  /** An endpoint over {@code relayer}. */
  public RelayerEndpoint(Relayer relayer) {
    this.relayer = relayer;
  }

  /**
   * The status, the health details, the parked keys (each: {@code key}, {@code lane}, {@code
   * headId}, {@code messageId}, {@code attempts}, {@code lastError}, {@code parkedAt}) and {@code
   * operations}: whether the actions are exposed.
   *
   * @return the status, as JSON
   */
  @ReadOperation
  public Map<String, Object> status() {
    HealthReport report = relayer.health();
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("status", report.status().name());
    status.putAll(HealthReportDetails.of(report));
    status.put(
        "parked", relayer.operator().parkedKeys().stream().map(RelayerEndpoint::parked).toList());
    status.put("operations", operationsEnabled());
    return status;
  }

  /** Whether this endpoint exposes the operator's actions. */
  boolean operationsEnabled() {
    return false;
  }

  /** The Relayer. */
  Relayer relayer() {
    return relayer;
  }

  static Map<String, Object> parked(ParkedKey parked) {
    Map<String, Object> key = new LinkedHashMap<>();
    key.put("key", parked.orderingKey());
    key.put("lane", parked.lane());
    key.put("headId", parked.headId());
    key.put("messageId", parked.messageId().toString());
    key.put("attempts", parked.attempts());
    key.put("lastError", parked.lastError());
    key.put("parkedAt", parked.parkedAt().toString());
    return key;
  }

  static List<String> actions() {
    return List.of("retry-head", "move-head-to-dead", "release-lane", "release-all");
  }
}
