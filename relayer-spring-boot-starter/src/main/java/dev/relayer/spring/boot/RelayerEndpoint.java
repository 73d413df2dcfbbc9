package dev.relayer.spring.boot;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.RelayerOperator;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadPage;
import dev.relayer.store.ops.DeadRowSummary;
import dev.relayer.store.ops.ParkedKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code relayer} actuator endpoint, read-only: {@code GET /actuator/relayer} shows the status
 * of {@link Relayer#health()} ({@code HEALTHY}, {@code DEGRADED} or {@code UNHEALTHY}), the same
 * details as the {@code relayer} health indicator, every parked ordering key ({@link
 * dev.relayer.dispatch.RelayerOperator#parkedKeys()}) and whether the operator's actions are
 * exposed. {@code GET /actuator/relayer/dead-groups} and {@code GET /actuator/relayer/dead-rows}
 * show the dead rows ({@link #view}). {@link RelayerOperationsEndpoint} adds the actions when
 * {@code relayer.actuator.operations.enabled=true}.
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

  /**
   * A view of the dead rows, filtered by the query parameters that are given (each matches exactly;
   * {@code failedFrom} inclusive and {@code failedBefore} exclusive, as ISO-8601 instants):
   *
   * <ul>
   *   <li>{@code dead-groups}: {@code groups}, the rows by error fingerprint (each: {@code
   *       fingerprint}, {@code count}, {@code firstFailedAt}, {@code lastFailedAt}, {@code
   *       sampleError}, {@code destinations}), most rows first, at most {@code limit} (default
   *       100), and {@code matching}, how many rows the filter matches;
   *   <li>{@code dead-rows}: {@code rows}, in id order after {@code after} (default 0), at most
   *       {@code limit} (default 100), each with every column but headers and body ({@code id},
   *       {@code messageId}, {@code transport}, {@code destination}, {@code messageType}, {@code
   *       orderingKey}, {@code tenantId}, {@code attempts}, {@code lastError}, {@code failedAt},
   *       {@code reason}, {@code fingerprint}, {@code bodyBytes}), and {@code next}, the {@code
   *       after} of the next page ({@code null} after the last).
   * </ul>
   *
   * An unknown view or a bad parameter is answered with HTTP 400. The actuator binds each query
   * parameter to the method parameter of its name, hence their number.
   *
   * @param view {@code dead-groups} or {@code dead-rows}
   * @param fingerprint rows of this error fingerprint
   * @param transport rows of this transport
   * @param destination rows bound for this destination
   * @param messageType rows of this message type
   * @param tenantId rows of this tenant
   * @param orderingKey rows of this ordering key
   * @param reason rows dead for this reason
   * @param failedFrom rows that failed at or after this instant
   * @param failedBefore rows that failed before this instant
   * @param after {@code dead-rows}: rows with a higher id
   * @param limit most groups or rows, 1 to 10,000
   * @return the view, as JSON
   */
  // {@code destinations} above is a field of the JSON answer, not a misspelt parameter.
  @SuppressWarnings("InvalidParam")
  @ReadOperation
  public Map<String, Object> view(
      @Selector String view,
      @Nullable String fingerprint,
      @Nullable String transport,
      @Nullable String destination,
      @Nullable String messageType,
      @Nullable String tenantId,
      @Nullable String orderingKey,
      @Nullable String reason,
      @Nullable String failedFrom,
      @Nullable String failedBefore,
      @Nullable Long after,
      @Nullable Integer limit) {
    RelayerOperator operator = relayer.operator();
    Map<String, Object> result = new LinkedHashMap<>();
    try {
      DeadFilter filter =
          new DeadRowsJson.FilterFields(
                  fingerprint,
                  transport,
                  destination,
                  messageType,
                  tenantId,
                  orderingKey,
                  reason,
                  failedFrom,
                  failedBefore)
              .filter();
      int most = limit == null ? DEFAULT_LIMIT : limit;
      result.put("filter", DeadRowsJson.filter(filter));
      switch (view) {
        case "dead-groups" -> {
          result.put(
              "groups",
              operator.deadGroups(filter, most).stream().map(DeadRowsJson::group).toList());
          result.put("matching", operator.deadCount(filter));
        }
        case "dead-rows" -> {
          DeadPage page = DeadPage.first(filter, most).after(after == null ? 0 : after);
          List<DeadRowSummary> rows = operator.deadRows(page);
          result.put("rows", rows.stream().map(DeadRowsJson::row).toList());
          result.put("next", rows.size() < most ? null : rows.get(rows.size() - 1).id());
        }
        default ->
            throw new InvalidEndpointRequestException(
                "unknown view '" + view + "'; one of " + views(),
                "unknown view; one of " + views());
      }
    } catch (InvalidInputException e) {
      throw new InvalidEndpointRequestException(
          String.valueOf(e.getMessage()), String.valueOf(e.getMessage()));
    }
    return result;
  }

  /** Groups or rows a view shows unless {@code limit} says otherwise. */
  static final int DEFAULT_LIMIT = 100;

  static List<String> views() {
    return List.of("dead-groups", "dead-rows");
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
    return List.of(
        "retry-head",
        "move-head-to-dead",
        "release-lane",
        "release-all",
        "replay-dead",
        "purge-dead");
  }
}
