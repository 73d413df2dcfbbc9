package dev.relayer.bench;

import dev.relayer.bench.anchor.AnchorScenario;
import dev.relayer.bench.peer.PeerScenario;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Every scenario the harness knows, in report order, and the ones issue 7 defines that are not
 * built yet.
 *
 * <p>To add a scenario, implement {@link Scenario} and add it to {@link #AVAILABLE}; remove its
 * entry from {@link #PENDING}.
 */
final class ScenarioCatalog {

  /** Scenario factories by id, in report order. */
  static final Map<String, Supplier<Scenario>> AVAILABLE = available();

  /** Scenarios of issue 7 without an implementation yet, with the reason. */
  static final Map<String, String> PENDING = pending();

  private ScenarioCatalog() {}

  /**
   * The scenarios named by {@code ids} ({@code all} = every available one), or an {@link
   * IllegalArgumentException} naming an unknown id.
   */
  static List<Scenario> select(List<String> ids) {
    List<Scenario> selected = new ArrayList<>();
    for (String id : ids) {
      if (id.equals("all")) {
        for (Supplier<Scenario> s : AVAILABLE.values()) {
          selected.add(s.get());
        }
      } else if (AVAILABLE.containsKey(id)) {
        selected.add(AVAILABLE.get(id).get());
      } else if (PENDING.containsKey(id)) {
        throw new IllegalArgumentException(
            "scenario '" + id + "' is not built yet: " + PENDING.get(id));
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

  private static Map<String, Supplier<Scenario>> available() {
    Map<String, Supplier<Scenario>> scenarios = new LinkedHashMap<>();
    scenarios.put(AnchorScenario.ID, AnchorScenario::new);
    scenarios.put(PeerScenario.ID, PeerScenario::new);
    return scenarios;
  }

  private static Map<String, String> pending() {
    String missing = "needs relayer-store and relayer-dispatch, which have not landed yet";
    Map<String, String> pending = new LinkedHashMap<>();
    pending.put("enqueue", "2. enqueue overhead; " + missing);
    pending.put("burndown", "3. burn-down by direct dispatch and by the sweeper; " + missing);
    pending.put("steady", "4. steady state with commit-to-send latency; " + missing);
    pending.put("backlog", "5. backlog scaling; " + missing);
    return pending;
  }
}
