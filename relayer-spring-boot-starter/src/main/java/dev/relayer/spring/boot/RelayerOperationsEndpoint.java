package dev.relayer.spring.boot;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.RelayerOperator;
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
 *       RelayerOperator#releaseAll}).
 * </ul>
 *
 * The answer names the action and what it changed: {@code changed} (false when the key was not
 * parked) or {@code released} (a count). An unknown action, a missing {@code key} or {@code lane},
 * or a lane out of range is answered with HTTP 400. Each action is logged by the operator. Expose
 * this only where the actuator is protected: anyone who may {@code POST} may release or dead-letter
 * messages.
 */
@Endpoint(id = "relayer")
public class RelayerOperationsEndpoint extends RelayerEndpoint {

  /** An endpoint over {@code relayer}, with its operator's actions. */
  public RelayerOperationsEndpoint(Relayer relayer) {
    super(relayer);
  }

  /**
   * Runs {@code action}.
   *
   * @param action {@code retry-head}, {@code move-head-to-dead}, {@code release-lane} or {@code
   *     release-all}
   * @param key the ordering key, for {@code retry-head} and {@code move-head-to-dead}
   * @param lane the lane, for {@code release-lane}
   * @return what the action did, as JSON
   */
  @WriteOperation
  public Map<String, Object> act(
      @Selector String action, @Nullable String key, @Nullable Integer lane) {
    RelayerOperator operator = relayer().operator();
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
        default ->
            throw new InvalidEndpointRequestException(
                "unknown action '" + action + "'; one of " + actions(),
                "unknown action; one of " + actions());
      }
    } catch (InvalidInputException e) {
      throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
    }
    return result;
  }

  @Override
  boolean operationsEnabled() {
    return true;
  }

  private static <T> T required(String name, @Nullable T value) {
    if (value == null) {
      throw new InvalidEndpointRequestException(
          name + " is required", name + " is required for this action");
    }
    return value;
  }
}
