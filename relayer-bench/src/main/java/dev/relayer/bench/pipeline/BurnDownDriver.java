package dev.relayer.bench.pipeline;

import dev.relayer.bench.ScenarioContext;
import java.util.Optional;

/**
 * Times a burn-down: from {@link DrainingSystem#startDraining()} until the sink has seen every
 * pre-loaded row, bounded by {@code --timeout}. Records {@code <key>.msgs} (rows delivered per
 * second) and {@code <key>.heap} (heap after GC, max, in MiB). With {@link PairedRuns} set up, each
 * burn-down starts together with the same burn-down of the paired process and its clock stops when
 * either side has delivered all of its rows; the rate is then over the rows delivered by that
 * moment. A note gives the rate to the side's own last row too, and the next burn-down waits until
 * both sides have delivered all of their rows.
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
          + " system's pool (with `synchronous_commit = on` each waits for a WAL flush)."
          + " *CPU per message* is the CPU time spent while the clock ran over the rows delivered:"
          + " the JVM's (every thread, the harness's included), PostgreSQL's (its postmaster and"
          + " every process it started, live or exited, from `/proc/<pid>/stat`; when the server"
          + " runs on this machine) and the machine's (every process, both of those included, from"
          + " `/proc/stat`).";

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
    measure(context, label, system, probe, rows, 0).record(context, key, label);
  }

  /**
   * Drains {@code rows} waiting rows through {@code system} and returns the figures without
   * recording them, for a scenario that adds up several burn-downs. The clock and the counts start
   * once the sink has seen {@code untimedRows} rows (0: when delivery starts), so that a rate can
   * leave out starting the system.
   */
  public static Timing measure(
      ScenarioContext context,
      String label,
      DrainingSystem system,
      DeliveryProbe probe,
      long rows,
      long untimedRows)
      throws Exception {
    long baseline = probe.deliveredCount();
    long commits0 = context.database().commits();
    long timeout = context.options().timeout().toNanos();
    Optional<PairedRuns> pair = PairedRuns.fromEnvironment();
    try (HeapWatcher heap = HeapWatcher.start()) {
      if (pair.isPresent()) {
        pair.get().awaitPeer();
      }
      long start = System.nanoTime();
      CpuTime.Reading cpu0 = CpuTime.Reading.now();
      system.startDraining();
      long from = baseline;
      if (untimedRows > 0 && probe.awaitDelivered(baseline + untimedRows, timeout) >= 0) {
        long seen = probe.deliveredCount();
        // A batch that delivered every row at once leaves nothing to time: keep the whole run.
        if (seen < baseline + rows) {
          from = seen;
          start = System.nanoTime();
          cpu0 = CpuTime.Reading.now();
          commits0 = context.database().commits();
        }
      }
      long end =
          pair.isPresent()
              ? pair.get().awaitDeliveredOrPeer(probe, baseline + rows, timeout)
              : probe.awaitDelivered(baseline + rows, timeout);
      CpuTime.Reading cpu = CpuTime.Reading.now().since(cpu0);
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
      long counted = Math.min(delivered, rows) - (from - baseline);
      if (pair.isPresent()) {
        long left = Math.max(0, timeout - (System.nanoTime() - start));
        long own = pair.get().awaitOwnLastRow(probe, baseline + rows, left);
        if (own >= 0) {
          double ownSeconds = (own - start) / 1e9;
          context.note(
              String.format(
                  "%s: paired, to its own last row: %.4f s, %.0f msgs/s",
                  label, ownSeconds, (rows - (from - baseline)) / ownSeconds));
        }
      }
      return new Timing(
          counted, delivered - (from - baseline), seconds, commits, heap.finish(), cpu);
    }
  }

  /**
   * One or more burn-downs added up.
   *
   * @param timed rows counted in the rate (at most the rows each burn-down was asked for)
   * @param delivered rows the sink saw while the clock ran
   * @param seconds time the clock ran, until the last row was seen
   * @param commits commits on the database's pools meanwhile
   * @param heapMiB heap after GC, max, in MiB
   * @param cpu CPU time spent while the clock ran: this JVM's, PostgreSQL's and the machine's
   */
  public record Timing(
      long timed,
      long delivered,
      double seconds,
      long commits,
      double heapMiB,
      CpuTime.Reading cpu) {

    /** No burn-down yet: what {@link #plus} starts from. */
    public static final Timing NONE = new Timing(0, 0, 0, 0, 0, new CpuTime.Reading(0, 0, 0));

    /** This burn-down and {@code other} together: counts and times added, the higher heap. */
    public Timing plus(Timing other) {
      return new Timing(
          timed + other.timed,
          delivered + other.delivered,
          seconds + other.seconds,
          commits + other.commits,
          Math.max(heapMiB, other.heapMiB),
          cpu.plus(other.cpu));
    }

    /**
     * Records {@code <key>.msgs}, {@code .commits}, {@code .heap} and, where the clocks tell, the
     * CPU time per message delivered: {@code .cpu.jvm}, {@code .cpu.postgres} and {@code
     * .cpu.machine}.
     */
    public void record(ScenarioContext context, String key, String label) {
      context.record(key + ".msgs", label, "msgs/s", timed / seconds);
      context.record(
          key + ".commits",
          label + ": commits per message",
          "commits",
          delivered == 0 ? Double.NaN : (double) commits / delivered);
      context.record(key + ".heap", label + ": heap after GC, max", "MiB", heapMiB);
      perMessage(context, key + ".cpu.jvm", label + ": JVM CPU per message", cpu.jvm());
      perMessage(
          context, key + ".cpu.postgres", label + ": PostgreSQL CPU per message", cpu.postgres());
      perMessage(context, key + ".cpu.machine", label + ": machine CPU per message", cpu.machine());
    }

    /** Records {@code nanos} per message delivered, in µs, where its clock could tell. */
    private void perMessage(ScenarioContext context, String key, String label, long nanos) {
      if (delivered > 0 && nanos >= 0) {
        context.record(key, label, "µs", nanos / 1e3 / delivered);
      }
    }
  }
}
