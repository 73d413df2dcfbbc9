package dev.relayer.spring.boot;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.RelayerOperator;
import dev.relayer.store.ops.DeadFilter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code relayer} actuator endpoint with the operator's actions ({@link RelayerOperator}), the
 * endpoint's bean when {@code relayer.actuator.operations.enabled=true}. Besides {@code GET
 * /actuator/relayer} ({@link RelayerEndpoint#status()}), {@code POST /actuator/relayer/{action}}
 * with a JSON body runs one action:
 *
 * <ul>
 *   <li>{@code retry-head} {@code {"key": "customer-42"}}: makes the parked head of the key pending
 *       again with fresh attempts ({@link RelayerOperator#retryHead});
 *   <li>{@code move-head-to-dead} {@code {"key": "customer-42"}}: moves the parked head to the dead
 *       table and lets the key go on ({@link RelayerOperator#moveHeadToDead});
 *   <li>{@code release-lane} {@code {"lane": 3}}: retries every parked head of a lane ({@link
 *       RelayerOperator#releaseLane});
 *   <li>{@code release-all} {@code {}}: retries every parked head ({@link
 *       RelayerOperator#releaseAll});
 *   <li>{@code replay-dead} {@code {"fingerprint": "3f2a…", "batchSize": 100}}: moves the dead rows
 *       the filter matches back to the outbox ({@link RelayerOperator#replayDead}); answers {@code
 *       replayed}, {@code ordered}, {@code parkedKeys} (keys whose replayed rows wait behind a
 *       parked head) and {@code batches};
 *   <li>{@code purge-dead} {@code {"reason": "rejected", "failedBefore": "2026-03-01T00:00:00Z"}}:
 *       deletes the dead rows the filter matches ({@link RelayerOperator#purgeDead}); answers
 *       {@code purged} and {@code batches}.
 * </ul>
 *
 * The dead-row actions take the filter fields of the dead-row views ({@link RelayerEndpoint#view})
 * as JSON fields, and {@code batchSize} (1 to 10,000, default 100); an action on every dead row
 * needs {@code "all": true} instead of a filter, so that a forgotten field never replays or purges
 * the whole table. The answer names the action and what it changed: {@code changed} (false when the
 * key was not parked), {@code released} (a count), or the counts above with the {@code filter}. An
 * unknown action, a missing {@code key} or {@code lane}, a lane out of range, a bad filter field or
 * a dead-row action with neither a filter nor {@code all} is answered with HTTP 400. Each action is
 * logged by the operator. Expose this only where the actuator is protected: anyone who may {@code
 * POST} may release, dead-letter, replay or purge messages.
 */
@Endpoint(id = "relayer")
public class RelayerOperationsEndpoint extends RelayerEndpoint {

  /** An endpoint over {@code relayer}, with its operator's actions. */
  public RelayerOperationsEndpoint(Relayer relayer) {
    super(relayer);
  }

  /**
   * Runs {@code action}. The actuator binds each JSON field to the method parameter of its name,
   * hence their number.
   *
   * @param action {@code retry-head}, {@code move-head-to-dead}, {@code release-lane}, {@code
   *     release-all}, {@code replay-dead} or {@code purge-dead}
   * @param key the ordering key, for {@code retry-head} and {@code move-head-to-dead}
   * @param lane the lane, for {@code release-lane}
   * @param fingerprint dead-row actions: rows of this error fingerprint
   * @param transport dead-row actions: rows of this transport
   * @param destination dead-row actions: rows bound for this destination
   * @param messageType dead-row actions: rows of this message type
   * @param tenantId dead-row actions: rows of this tenant
   * @param orderingKey dead-row actions: rows of this ordering key
   * @param reason dead-row actions: rows dead for this reason
   * @param failedFrom dead-row actions: rows that failed at or after this ISO-8601 instant
   * @param failedBefore dead-row actions: rows that failed before this ISO-8601 instant
   * @param all dead-row actions: {@code true} to act on every dead row (with no filter field)
   * @param batchSize dead-row actions: rows per batch, 1 to 10,000 (default 100)
   * @return what the action did, as JSON
   */
  @WriteOperation
  public Map<String, Object> act(
      @Selector String action,
      @Nullable String key,
      @Nullable Integer lane,
      @Nullable String fingerprint,
      @Nullable String transport,
      @Nullable String destination,
      @Nullable String messageType,
      @Nullable String tenantId,
      @Nullable String orderingKey,
      @Nullable String reason,
      @Nullable String failedFrom,
      @Nullable String failedBefore,
      @Nullable Boolean all,
      @Nullable Integer batchSize) {
    RelayerOperator operator = relayer().operator();
    DeadRowsJson.FilterFields fields =
        new DeadRowsJson.FilterFields(
            fingerprint,
            transport,
            destination,
            messageType,
            tenantId,
            orderingKey,
            reason,
            failedFrom,
            failedBefore);
    int batch = batchSize == null ? RelayerOperator.DEFAULT_BATCH_SIZE : batchSize;
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("action", action);
    try {
      switch (action) {
        case "retry-head" -> {
          result.put("key", required("key", key));
          result.put("changed", operator.retryHead(required("key", key)));
        }
        case "move-head-to-dead" -> {
          result.put("key", required("key", key));
          result.put("changed", operator.moveHeadToDead(required("key", key)));
        }
        case "release-lane" -> {
          result.put("lane", required("lane", lane));
          result.put("released", operator.releaseLane(required("lane", lane)));
        }
        case "release-all" -> result.put("released", operator.releaseAll());
        case "replay-dead" -> {
          DeadFilter filter = deadFilter(fields, all);
          result.put("filter", DeadRowsJson.filter(filter));
          DeadRowsJson.replayed(result, operator.replayDead(filter, batch));
        }
        case "purge-dead" -> {
          DeadFilter filter = deadFilter(fields, all);
          result.put("filter", DeadRowsJson.filter(filter));
          DeadRowsJson.purged(result, operator.purgeDead(filter, batch));
        }
        default ->
            throw new InvalidEndpointRequestException(
                "unknown action '" + action + "'; one of " + actions(),
                "unknown action; one of " + actions());
      }
    } catch (InvalidInputException e) {
      throw new InvalidEndpointRequestException(
          String.valueOf(e.getMessage()), String.valueOf(e.getMessage()));
    }
    return result;
  }

  @Override
  boolean operationsEnabled() {
    return true;
  }

  /**
   * The filter of a dead-row action: one with at least one field, or every row when {@code all} is
   * true and no field is given.
   */
  private static DeadFilter deadFilter(DeadRowsJson.FilterFields fields, @Nullable Boolean all) {
    DeadFilter filter = fields.filter();
    boolean everything = Boolean.TRUE.equals(all);
    if (filter.matchesAll() && !everything) {
      throw new InvalidInputException(
          "a dead-row action needs a filter field (fingerprint, transport, destination,"
              + " messageType, tenantId, orderingKey, reason, failedFrom, failedBefore) or"
              + " \"all\": true");
    }
    if (!filter.matchesAll() && everything) {
      throw new InvalidInputException("\"all\": true must not be combined with filter fields");
    }
    return filter;
  }

  private static <T> T required(String name, @Nullable T value) {
    if (value == null) {
      throw new InvalidEndpointRequestException(
          name + " is required", name + " is required for this action");
    }
    return value;
  }
}
