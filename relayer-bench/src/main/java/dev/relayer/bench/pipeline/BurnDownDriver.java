package dev.relayer.bench.pipeline;

import dev.relayer.bench.ScenarioContext;

/**
 * Times a burn-down: from {@link DrainingSystem#startDraining()} until the sink has seen every
 * pre-loaded row, bounded by {@code --timeout}. Records {@code <key>.msgs} (rows delivered per
 * second) and {@code <key>.heap} (heap after GC, max, in MiB).
 */
public final class BurnDownDriver {

  /** How a burn-down is measured, for the report. */
  public static final String METHOD =
      "**Burn-down**: `--rows` rows wait in the table (loaded by the server, then `VACUUM"
          + " ANALYZE` and `CHECKPOINT`); the clock runs from starting the system's delivery"
          + " until its sink has seen every row (bounded by `--timeout`). Heap is the largest"
          + " heap occupancy after a garbage collection during the burn-down (the JVM runs"
          + " with `-Xmx1g` under `bench/run`), including a collection forced at the end while the system"
          + " still runs. *Commits per message* counts `Connection.commit()` calls on the"
          + " system's pool (with `synchronous_commit = on` each waits for a WAL flush).";

  private BurnDownDriver() {}

  /**
   * Drains {@code rows} waiting rows through {@code system} and records the figures.
   *
   * @param key key prefix, e.g. {@code burndown}
   * @param label what is drained, for the report
   */
  public static void run(
      ScenarioContext context,
      String key,
      String label,
      DrainingSystem system,
      DeliveryProbe probe,
      long rows)
      throws Exception {
    long baseline = probe.deliveredCount();
    long commits0 = context.database().commits();
    long timeout = context.options().timeout().toNanos();
    try (HeapWatcher heap = HeapWatcher.start()) {
      long start = System.nanoTime();
      system.startDraining();
      long end = probe.awaitDelivered(baseline + rows, timeout);
      long delivered = probe.deliveredCount() - baseline;
      double seconds;
      if (end < 0) {
        seconds = (System.nanoTime() - start) / 1e9;
        context.note(
            String.format(
                "%s: cut short by --timeout after %.0f s with %d of %d rows delivered; the rate"
                    + " is over the rows delivered by then",
                label, seconds, delivered, rows));
      } else {
        seconds = (end - start) / 1e9;
      }
      long commits = context.database().commits() - commits0;
      context.record(key + ".msgs", label, "msgs/s", Math.min(delivered, rows) / seconds);
      context.record(
          key + ".commits",
          label + ": commits per message",
          "commits",
          delivered == 0 ? Double.NaN : (double) commits / delivered);
      context.record(key + ".heap", label + ": heap after GC, max", "MiB", heap.finish());
    }
  }
}
