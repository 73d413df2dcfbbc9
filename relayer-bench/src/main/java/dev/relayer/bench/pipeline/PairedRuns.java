package dev.relayer.bench.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Two harness processes run as a pair: two JVMs, typically the jars of two commits, against one
 * PostgreSQL server. Each burn-down of one starts together with the same burn-down of the other,
 * and both clocks stop when either has delivered all of its rows, as scenario 13 does inside one
 * JVM. Each timed steady-state measurement (a capacity window, a load level, a run of buckets)
 * starts together with the other's same measurement too; its length is fixed, so both end together.
 * Whatever else the machine does then falls on both sides of each pair.
 *
 * <p>Turned on by two environment variables, so that a jar of an older commit takes the same two
 * files without option parsing of its own: {@value #DIR_VARIABLE}, a directory both processes can
 * write (empty at the start), and {@value #ROLE_VARIABLE}, {@code a} in one process and {@code b}
 * in the other. Both must run the same scenarios with the same options, so that their n-th
 * measurements are the same measurement. The processes meet through files: {@code <role>.<n>.ready}
 * when a measurement is about to start, {@code <role>.<n>.done} when a burn-down's paired clock
 * stopped, and {@code <role>.<n>.finished} when the burn-down's own last row was delivered. Each
 * burn-down thus gives two rates: over the rows delivered when the first side finished (both sides
 * under the same load throughout), and to the side's own last row (not cut by the other side, so
 * not quantized by a burn-down that delivers its last rows in large steps; the side that finishes
 * later runs its last part alone).
 */
public final class PairedRuns {

  /** Directory both processes meet in; pairing is off when unset. */
  public static final String DIR_VARIABLE = "RELAYER_BENCH_PAIR_DIR";

  /** This process's side: {@code a} or {@code b}. */
  public static final String ROLE_VARIABLE = "RELAYER_BENCH_PAIR_ROLE";

  private static Optional<PairedRuns> configured;

  private final Path dir;
  private final String role;
  private final String other;
  private int next;
  private int current = -1;

  private PairedRuns(Path dir, String role) {
    this.dir = dir;
    this.role = role;
    this.other = role.equals("a") ? "b" : "a";
  }

  /**
   * The pairing the environment asks for, if any, read once.
   *
   * @throws IllegalArgumentException naming the variable that is wrong
   */
  public static synchronized Optional<PairedRuns> fromEnvironment() {
    if (configured == null) {
      configured = configured(System.getenv(DIR_VARIABLE), System.getenv(ROLE_VARIABLE));
    }
    return configured;
  }

  /** For the report: which side this process is and where it meets the other. */
  public String describe() {
    return "burn-downs and steady-state windows paired with another process (side "
        + role
        + ", through "
        + dir
        + ")";
  }

  /**
   * The pairing of {@code dir} and {@code role}: none when both are unset; an error naming the
   * variable when only one is set, the role is not {@code a} or {@code b}, or the directory does
   * not exist.
   */
  static Optional<PairedRuns> configured(String dir, String role) {
    if (dir == null && role == null) {
      return Optional.empty();
    }
    if (dir == null || role == null) {
      throw new IllegalArgumentException(
          DIR_VARIABLE + " and " + ROLE_VARIABLE + " pair two processes; only one is set");
    }
    String side = role.trim().toLowerCase(Locale.ROOT);
    if (!side.equals("a") && !side.equals("b")) {
      throw new IllegalArgumentException(ROLE_VARIABLE + " must be a or b, not '" + role + "'");
    }
    Path path = Path.of(dir);
    if (!Files.isDirectory(path)) {
      throw new IllegalArgumentException(
          DIR_VARIABLE + " is not an existing directory: " + path.toAbsolutePath());
    }
    return Optional.of(new PairedRuns(path, side));
  }

  /**
   * With pairing on, announces the next measurement and waits until the other process has announced
   * it too; without, returns at once.
   */
  static void awaitPeerIfPaired() throws InterruptedException {
    Optional<PairedRuns> pair = fromEnvironment();
    if (pair.isPresent()) {
      pair.get().awaitPeer();
    }
  }

  /** Announces the next measurement and waits until the other process has announced it too. */
  synchronized void awaitPeer() throws InterruptedException {
    current = next++;
    touch("ready");
    Path theirs = file(other, "ready");
    while (!Files.exists(theirs)) {
      TimeUnit.MICROSECONDS.sleep(100);
    }
  }

  /**
   * Waits until {@code probe} has seen {@code target} deliveries or the other process's clock for
   * the current burn-down has stopped, then says this one's has; returns the {@link
   * System#nanoTime()} it stopped at, or -1 after {@code timeoutNanos}.
   */
  synchronized long awaitDeliveredOrPeer(DeliveryProbe probe, long target, long timeoutNanos)
      throws InterruptedException {
    Path theirs = file(other, "done");
    long end = probe.awaitDelivered(target, timeoutNanos, () -> Files.exists(theirs));
    touch("done");
    return end;
  }

  /**
   * After {@link #awaitDeliveredOrPeer}: waits until {@code probe} has seen {@code target}
   * deliveries, says so, and waits until the other process has said so too, so that neither side
   * loads its next rows (or checkpoints) while the other still delivers. Returns the {@link
   * System#nanoTime()} this side's last row was seen at, or -1 after {@code timeoutNanos}.
   */
  synchronized long awaitOwnLastRow(DeliveryProbe probe, long target, long timeoutNanos)
      throws InterruptedException {
    long end = probe.awaitDelivered(target, timeoutNanos);
    touch("finished");
    Path theirs = file(other, "finished");
    while (!Files.exists(theirs)) {
      TimeUnit.MICROSECONDS.sleep(100);
    }
    return end;
  }

  private void touch(String what) {
    try {
      Files.writeString(file(role, what), "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path file(String side, String what) {
    return dir.resolve(side + "." + current + "." + what);
  }
}
