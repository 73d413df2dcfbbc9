package dev.relayer.bench;

import dev.relayer.bench.anchor.AnchorScenario;
import dev.relayer.bench.peer.PeerScenario;
import dev.relayer.bench.relayer.BacklogScenario;
import dev.relayer.bench.relayer.BrokersScenario;
import dev.relayer.bench.relayer.BurnDownScenario;
import dev.relayer.bench.relayer.CleanupScenario;
import dev.relayer.bench.relayer.EnqueueOverheadScenario;
import dev.relayer.bench.relayer.LaneClaimScenario;
import dev.relayer.bench.relayer.LaneScaleScenario;
import dev.relayer.bench.relayer.LanesScenario;
import dev.relayer.bench.relayer.ObservabilityScenario;
import dev.relayer.bench.relayer.ObservedPairScenario;
import dev.relayer.bench.relayer.ObserversScenario;
import dev.relayer.bench.relayer.PinScenario;
import dev.relayer.bench.relayer.SteadyStateScenario;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every scenario the harness knows, in report order.
 *
 * <p>To add a scenario, implement {@link Scenario} and add it to {@link #AVAILABLE}.
 */
final class ScenarioCatalog {

  /** Scenario factories by id, in report order. */
  static final Map<String, Function<BenchOptions, Scenario>> AVAILABLE = available();

  private ScenarioCatalog() {}

  /**
   * The scenarios named by {@code ids} ({@code all} = every available one), or an {@link
   * IllegalArgumentException} naming an unknown id.
   */
  static List<Scenario> select(List<String> ids, BenchOptions options) {
    List<Scenario> selected = new ArrayList<>();
    for (String id : ids) {
      if (id.equals("all")) {
        for (Function<BenchOptions, Scenario> s : AVAILABLE.values()) {
          selected.add(s.apply(options));
        }
      } else if (AVAILABLE.containsKey(id)) {
        selected.add(AVAILABLE.get(id).apply(options));
      } else {
        throw new IllegalArgumentException(
            "unknown scenario '"
                + id
                + "' (available: all, "
                + String.join(", ", AVAILABLE.keySet())
                + ")");
      }
    }
    return selected;
  }

  private static Map<String, Function<BenchOptions, Scenario>> available() {
    Map<String, Function<BenchOptions, Scenario>> scenarios = new LinkedHashMap<>();
    scenarios.put(AnchorScenario.ID, o -> new AnchorScenario());
    scenarios.put(EnqueueOverheadScenario.ID, EnqueueOverheadScenario::new);
    scenarios.put(BurnDownScenario.ID, o -> new BurnDownScenario());
    scenarios.put(SteadyStateScenario.ID, o -> new SteadyStateScenario());
    scenarios.put(BacklogScenario.ID, BacklogScenario::new);
    scenarios.put(PeerScenario.ID, o -> new PeerScenario());
    scenarios.put(LanesScenario.ID, o -> new LanesScenario());
    scenarios.put(LaneScaleScenario.ID, o -> new LaneScaleScenario());
    scenarios.put(LaneClaimScenario.ID, o -> new LaneClaimScenario());
    scenarios.put(BrokersScenario.ID, o -> new BrokersScenario());
    scenarios.put(CleanupScenario.ID, o -> new CleanupScenario());
    scenarios.put(PinScenario.ID, o -> new PinScenario());
    scenarios.put(ObservabilityScenario.ID, o -> new ObservabilityScenario());
    scenarios.put(ObserversScenario.ID, o -> new ObserversScenario());
    scenarios.put(ObservedPairScenario.ID, o -> new ObservedPairScenario());
    return scenarios;
  }
}
