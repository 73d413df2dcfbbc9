package dev.relayer.bench.pipeline;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time spent so far, to divide by the messages of a measurement: this JVM's, and the whole
 * machine's (every process, PostgreSQL's included) from Linux's {@code /proc/stat}.
 */
public final class CpuTime {

  /** Linux's clock tick of {@code /proc/stat}: 100 per second on every common kernel build. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  private static final Path PROC_STAT = Path.of("/proc/stat");

  private CpuTime() {}

  /** This JVM's CPU time in nanoseconds, every thread; -1 where the JVM cannot tell. */
  public static long jvmNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /**
   * The machine's busy CPU time in nanoseconds, all cores added (user, nice, system, irq, softirq
   * and steal time of {@code /proc/stat}'s first line); -1 where there is no {@code /proc/stat}.
   */
  public static long machineNanos() {
    String line;
    try {
      line = Files.readAllLines(PROC_STAT).get(0);
    } catch (IOException | IndexOutOfBoundsException e) {
      return -1;
    }
    String[] f = line.trim().split("\\s+");
    if (f.length < 9 || !f[0].equals("cpu")) {
      return -1;
    }
    long ticks = 0;
    for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
      ticks += Long.parseLong(f[i]);
    }
    return ticks * NANOS_PER_TICK;
  }

  /** Both clocks at one moment. */
  public record Reading(long jvm, long machine) {

    /** Both clocks now. */
    public static Reading now() {
      return new Reading(jvmNanos(), machineNanos());
    }

    /** The CPU time from {@code earlier} to this reading; -1 for a clock that cannot tell. */
    public Reading since(Reading earlier) {
      return new Reading(
          jvm < 0 || earlier.jvm < 0 ? -1 : jvm - earlier.jvm,
          machine < 0 || earlier.machine < 0 ? -1 : machine - earlier.machine);
    }

    /** Two spans of CPU time added; -1 stays -1. */
    public Reading plus(Reading other) {
      return new Reading(
          jvm < 0 || other.jvm < 0 ? -1 : jvm + other.jvm,
          machine < 0 || other.machine < 0 ? -1 : machine + other.machine);
    }
  }
}
