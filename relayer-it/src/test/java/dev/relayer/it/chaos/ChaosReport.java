package dev.relayer.it.chaos;

import dev.relayer.it.chaos.DeliveryLog.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * What a chaos run committed, delivered and left behind, checked against the promises: every
 * committed message delivered at least once, per ordering key the first deliveries in commit order
 * (outbox id order), every poison message dead (unordered, out of attempts) or parked (ordered),
 * sent at most {@code maxAttempts} times alone plus {@value #SENDS_WITH_OTHERS} times with others
 * (before it was suspect), and nothing else dead or parked, the outbox empty but for the parked
 * poison. The poison rows' {@code attempts} are reported, not bounded: every claim counts,
 * including claims of processes the run killed for other reasons while the row was in flight, and
 * the claim that found the row out of attempts and moved it unsent. {@link #problems()} lists every
 * broken promise; {@link #text()} is the summary.
 */
record ChaosReport(String text, List<String> problems, Faults faults) {

  /**
   * Sends of a poison message with others, which cost it no attempt: a pass that left no trace,
   * then the first claim committed before its send (direct dispatch's, or a careful one after a
   * takeover), which leaves it suspect; from then on it is sent alone.
   */
  static final int SENDS_WITH_OTHERS = 2;

  /** The dead reason of a row that ran out of attempts ({@code DeadReason.MAX_ATTEMPTS.tag()}). */
  static final String MAX_ATTEMPTS = "max-attempts";

  /** A row of the producers' business table: a message that was committed. */
  record Committed(UUID messageId, long outboxId, String orderingKey, boolean poison) {}

  /** A row of the dead table. */
  record Dead(UUID messageId, int attempts, String reason) {}

  /** A row still in the outbox at the end. */
  record Left(UUID messageId, String orderingKey, String status, int attempts) {}

  /** The faults the run really injected, as counted when each happened. */
  record Faults(
      int dispatcherKills,
      int producerKills,
      int postgresRestarts,
      int transportCuts,
      int poisonPlantedUnordered,
      int poisonPlantedOrdered,
      int dispatcherPoisonHalts,
      int producerPoisonHalts,
      int dispatcherStarts,
      int producerStarts,
      List<String> unexpectedExits,
      List<String> killsNotBySigkill) {}

  /** How the run went: its settings, how long it took, whether the drain finished in time. */
  record Run(ChaosSettings settings, Duration faultPhase, Duration drain, boolean drained) {}

  static ChaosReport of(
      Run run,
      List<Committed> committed,
      List<Delivery> deliveries,
      List<Dead> dead,
      List<Left> left,
      Faults faults,
      List<String> poisonSends,
      int maxAttempts) {
    List<String> problems = new ArrayList<>();
    Map<UUID, Committed> byId = new HashMap<>();
    committed.forEach(c -> byId.put(c.messageId(), c));
    Map<UUID, Delivery> first = new LinkedHashMap<>();
    for (Delivery delivery : deliveries) {
      first.putIfAbsent(delivery.messageId(), delivery);
    }

    List<UUID> lost = new ArrayList<>();
    List<UUID> poison = new ArrayList<>();
    int ordered = 0;
    Set<String> keys = new HashSet<>();
    for (Committed c : committed) {
      if (c.poison()) {
        poison.add(c.messageId());
      } else {
        if (c.orderingKey() != null) {
          ordered++;
          keys.add(c.orderingKey());
        }
        if (!first.containsKey(c.messageId())) {
          lost.add(c.messageId());
        }
      }
    }
    Map<UUID, Left> leftById = new HashMap<>();
    left.forEach(l -> leftById.put(l.messageId(), l));
    List<UUID> stuck = lost.stream().filter(leftById::containsKey).toList();
    List<UUID> gone = lost.stream().filter(id -> !leftById.containsKey(id)).toList();
    check(
        problems,
        gone.isEmpty(),
        gone.size() + " committed messages gone from the outbox, never delivered: " + few(gone));
    check(
        problems,
        stuck.isEmpty(),
        stuck.size() + " committed messages still in the outbox, never delivered: " + few(stuck));

    List<UUID> phantom = new ArrayList<>();
    List<UUID> poisonDelivered = new ArrayList<>();
    List<UUID> wrongKey = new ArrayList<>();
    for (Delivery delivery : first.values()) {
      Committed c = byId.get(delivery.messageId());
      if (c == null) {
        phantom.add(delivery.messageId());
      } else if (c.poison()) {
        poisonDelivered.add(c.messageId());
      } else if (!Objects.equals(c.orderingKey(), delivery.orderingKey())) {
        wrongKey.add(c.messageId());
      }
    }
    check(
        problems,
        phantom.isEmpty(),
        phantom.size() + " deliveries never committed: " + few(phantom));
    check(
        problems,
        poisonDelivered.isEmpty(),
        poisonDelivered.size() + " poison messages delivered: " + few(poisonDelivered));
    check(
        problems,
        wrongKey.isEmpty(),
        wrongKey.size() + " deliveries with another ordering key: " + few(wrongKey));

    List<String> reordered = reordered(committed, first);
    check(
        problems,
        reordered.isEmpty(),
        reordered.size()
            + " messages delivered before an earlier one of their key: "
            + few(reordered));

    Set<UUID> poisonUnordered = new HashSet<>();
    Set<UUID> poisonOrdered = new HashSet<>();
    for (UUID id : poison) {
      (byId.get(id).orderingKey() == null ? poisonUnordered : poisonOrdered).add(id);
    }
    Set<UUID> deadIds = new HashSet<>();
    List<String> deadBeyond = new ArrayList<>();
    List<UUID> deadOther = new ArrayList<>();
    for (Dead d : dead) {
      deadIds.add(d.messageId());
      if (!poisonUnordered.contains(d.messageId())) {
        deadOther.add(d.messageId());
      }
      if (poisonUnordered.contains(d.messageId()) && !MAX_ATTEMPTS.equals(d.reason())) {
        deadBeyond.add(d.messageId() + " (" + d.reason() + ")");
      }
    }
    Set<UUID> notDead = new HashSet<>(poisonUnordered);
    notDead.removeAll(deadIds);
    check(
        problems,
        notDead.isEmpty(),
        notDead.size() + " unordered poison messages not dead: " + few(notDead));
    check(
        problems,
        deadOther.isEmpty(),
        deadOther.size() + " other messages dead: " + few(deadOther));
    check(
        problems,
        deadBeyond.isEmpty(),
        deadBeyond.size()
            + " poison messages dead for another reason than running out of attempts: "
            + few(deadBeyond));

    Set<UUID> parkedIds = new HashSet<>();
    List<UUID> leftOther = new ArrayList<>();
    for (Left l : left) {
      if ("parked".equals(l.status()) && poisonOrdered.contains(l.messageId())) {
        parkedIds.add(l.messageId());
      } else {
        leftOther.add(l.messageId());
      }
    }
    Set<UUID> notParked = new HashSet<>(poisonOrdered);
    notParked.removeAll(parkedIds);
    check(
        problems,
        notParked.isEmpty(),
        notParked.size() + " ordered poison messages not parked: " + few(notParked));
    check(
        problems,
        leftOther.isEmpty(),
        leftOther.size() + " rows left in the outbox besides parked poison: " + few(leftOther));
    check(problems, run.drained(), "not drained within " + run.settings().drainTimeout());
    check(
        problems,
        faults.unexpectedExits().isEmpty(),
        "child JVMs exited on their own: " + faults.unexpectedExits());
    check(
        problems,
        faults.killsNotBySigkill().isEmpty(),
        "kills that did not end by SIGKILL: " + faults.killsNotBySigkill());

    int duplicates = deliveries.size() - first.size();
    StringBuilder text = new StringBuilder();
    ChaosSettings s = run.settings();
    text.append("Relayer chaos run\n");
    line(text, "seed", s.seed());
    line(text, "fault phase", run.faultPhase() + " (asked " + s.duration() + ")");
    line(text, "drain", run.drain() + (run.drained() ? "" : " (timed out)"));
    line(text, "processes", s.dispatchers() + " dispatchers, " + s.producers() + " producers");
    line(
        text,
        "committed",
        committed.size()
            + " messages: "
            + (committed.size() - ordered - poison.size())
            + " unordered, "
            + ordered
            + " ordered on "
            + keys.size()
            + " keys, "
            + poison.size()
            + " poison");
    line(
        text,
        "deliveries",
        deliveries.size() + " (" + first.size() + " distinct, " + duplicates + " duplicates)");
    line(
        text,
        "lost",
        lost.size()
            + " ("
            + gone.size()
            + " gone from the outbox, "
            + stuck.size()
            + " still in it)");
    line(text, "reordered", reordered.size());
    line(text, "phantom deliveries", phantom.size());
    line(
        text,
        "poison planted",
        poisonUnordered.size()
            + " unordered, "
            + poisonOrdered.size()
            + " ordered (asked "
            + faults.poisonPlantedUnordered()
            + " and "
            + faults.poisonPlantedOrdered()
            + ")");
    line(
        text,
        "dead",
        dead.size()
            + " ("
            + (dead.size() - deadOther.size())
            + " poison, "
            + deadOther.size()
            + " other; max attempts "
            + maxAttempts(dead)
            + " of "
            + maxAttempts
            + ")");
    line(text, "parked", parkedIds.size() + " poison keys");
    Map<UUID, Integer> sends = new HashMap<>();
    for (String line : poisonSends) {
      if (!line.isBlank()) {
        sends.merge(UUID.fromString(line.strip()), 1, Integer::sum);
      }
    }
    List<String> sentTooOften = new ArrayList<>();
    Map<UUID, Dead> deadById = new HashMap<>();
    dead.forEach(d -> deadById.put(d.messageId(), d));
    for (UUID id : poison) {
      Dead d = deadById.get(id);
      Left l = leftById.get(id);
      String where =
          d != null
              ? "dead after " + d.attempts() + " attempts: " + d.reason()
              : l != null ? l.status() + " after " + l.attempts() + " attempts" : "gone";
      int sent = sends.getOrDefault(id, 0);
      where += ", sent " + sent + " times";
      if (sent > maxAttempts + SENDS_WITH_OTHERS) {
        sentTooOften.add(id + " (" + sent + " sends)");
      }
      line(
          text,
          "  poison " + (byId.get(id).orderingKey() == null ? "unordered" : "ordered"),
          id + " " + where);
    }
    line(
        text,
        "outbox left",
        left.size() + " rows (" + leftOther.size() + " besides parked poison)");
    line(text, "dispatcher kills (SIGKILL)", faults.dispatcherKills());
    line(text, "producer kills (SIGKILL)", faults.producerKills());
    line(text, "PostgreSQL crash restarts", faults.postgresRestarts());
    line(text, "transport cuts", faults.transportCuts());
    line(
        text,
        "poison halts",
        faults.dispatcherPoisonHalts()
            + " dispatchers, "
            + faults.producerPoisonHalts()
            + " producers");
    line(
        text,
        "JVM starts",
        faults.dispatcherStarts() + " dispatchers, " + faults.producerStarts() + " producers");
    line(text, "unexpected exits", faults.unexpectedExits().size());
    check(
        problems,
        sentTooOften.isEmpty(),
        sentTooOften.size()
            + " poison messages sent more than maxAttempts = "
            + maxAttempts
            + " times alone and "
            + SENDS_WITH_OTHERS
            + " with others: "
            + few(sentTooOften));
    text.append(problems.isEmpty() ? "verdict: PASS\n" : "verdict: FAIL\n");
    problems.forEach(p -> text.append("  - ").append(p).append('\n'));
    return new ChaosReport(text.toString(), List.copyOf(problems), faults);
  }

  /** This report with {@code appendix} after its text (the problems stay as they are). */
  ChaosReport withAppendix(String appendix) {
    return new ChaosReport(text + appendix, problems, faults);
  }

  /**
   * Per key, in commit order: a message whose first delivery came before the first delivery of an
   * earlier message of its key. Lost messages are reported as lost, not here.
   */
  private static List<String> reordered(List<Committed> committed, Map<UUID, Delivery> first) {
    Map<String, List<Committed>> byKey = new HashMap<>();
    for (Committed c : committed) {
      if (c.orderingKey() != null && !c.poison()) {
        byKey.computeIfAbsent(c.orderingKey(), k -> new ArrayList<>()).add(c);
      }
    }
    List<String> reordered = new ArrayList<>();
    for (List<Committed> rows : byKey.values()) {
      rows.sort(Comparator.comparingLong(Committed::outboxId));
      int latest = -1;
      Committed latestRow = null;
      for (Committed c : rows) {
        Delivery delivery = first.get(c.messageId());
        if (delivery == null) {
          continue;
        }
        if (delivery.position() < latest) {
          reordered.add(
              c.orderingKey() + ": id " + c.outboxId() + " before id " + latestRow.outboxId());
        } else {
          latest = delivery.position();
          latestRow = c;
        }
      }
    }
    return reordered;
  }

  private static int maxAttempts(List<Dead> dead) {
    return dead.stream().mapToInt(Dead::attempts).max().orElse(0);
  }

  private static void check(List<String> problems, boolean ok, String problem) {
    if (!ok) {
      problems.add(problem);
    }
  }

  private static String few(java.util.Collection<?> items) {
    return items.stream().limit(5).toList() + (items.size() > 5 ? " ..." : "");
  }

  private static void line(StringBuilder text, String label, Object value) {
    text.append(String.format("  %-28s %s%n", label + ":", value));
  }
}
