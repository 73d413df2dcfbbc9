package dev.relayer.bench.pipeline;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;

/**
 * CPU time spent so far, to divide by the messages of a measurement: this JVM's, PostgreSQL's (once
 * {@link #watchPostgres} has found its server on this machine) and the whole machine's (every
 * process, both of those included) from Linux's {@code /proc}.
 */
public final class CpuTime {

  /** Linux's clock tick of {@code /proc}: 100 per second on every common kernel build. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  private static final Path PROC = Path.of("/proc");
  private static final Path PROC_STAT = PROC.resolve("stat");

  /** The postmaster whose processes count as PostgreSQL's; -1 until one is found. */
  private static volatile long postmaster = -1;

  private CpuTime() {}

  /**
   * Counts, from now on, the CPU time of the server {@code connection} is on, when it runs on this
   * machine: its postmaster, the parent of the connection's backend, whose working directory is the
   * server's data directory. Leaves it uncounted (-1) where that does not hold, as with a server on
   * another host (a local process may have the same number as its backend), or where the
   * connection's user may not read the data directory's setting.
   */
  public static void watchPostgres(Connection connection) {
    postmaster = -1;
    long backend;
    String dataDirectory;
    try (Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery("SELECT pg_backend_pid(), current_setting('data_directory')")) {
      rs.next();
      backend = rs.getLong(1);
      dataDirectory = rs.getString(2);
    } catch (SQLException e) {
      return;
    }
    long[] stat = stat(PROC.resolve(Long.toString(backend)).resolve("stat"));
    if (stat == null) {
      return;
    }
    try {
      Path cwd = PROC.resolve(Long.toString(stat[PPID])).resolve("cwd").toRealPath();
      if (cwd.equals(Path.of(dataDirectory).toRealPath())) {
        postmaster = stat[PPID];
      }
    } catch (IOException e) {
      // Not this machine's server, or not readable: left uncounted.
    }
  }

  /** This JVM's CPU time in nanoseconds, every thread; -1 where the JVM cannot tell. */
  public static long jvmNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /**
   * The watched PostgreSQL server's CPU time in nanoseconds: its postmaster's, every live process
   * the postmaster started (backends, checkpointer, WAL writer, autovacuum…), and every one it has
   * reaped since it started; -1 when no server is watched or it is gone.
   */
  public static long postgresNanos() {
    long pid = postmaster;
    if (pid < 0) {
      return -1;
    }
    long[] own = stat(PROC.resolve(Long.toString(pid)).resolve("stat"));
    if (own == null) {
      return -1;
    }
    long ticks = own[UTIME] + own[STIME] + own[CUTIME] + own[CSTIME];
    try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path process : processes) {
        long[] child = stat(process.resolve("stat"));
        if (child != null && child[PPID] == pid) {
          ticks += child[UTIME] + child[STIME];
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return ticks * NANOS_PER_TICK;
  }

  /**
   * The CPU time in nanoseconds of those of {@code pids} that are live processes of the watched
   * PostgreSQL server (its backends, say); -1 when no server is watched.
   */
  public static long backendsNanos(Collection<Long> pids) {
    long pid = postmaster;
    if (pid < 0) {
      return -1;
    }
    long ticks = 0;
    for (long backend : pids) {
      long[] own = stat(PROC.resolve(Long.toString(backend)).resolve("stat"));
      if (own != null && own[PPID] == pid) {
        ticks += own[UTIME] + own[STIME];
      }
    }
    return ticks * NANOS_PER_TICK;
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
    String[] f = line.trim().split("\\s+", -1);
    if (f.length < 9 || !f[0].equals("cpu")) {
      return -1;
    }
    long ticks = 0;
    for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
      ticks += Long.parseLong(f[i]);
    }
    return ticks * NANOS_PER_TICK;
  }

  // Fields of /proc/<pid>/stat, counted from the state (its third field) on.
  private static final int PPID = 1;
  private static final int UTIME = 11;
  private static final int STIME = 12;
  private static final int CUTIME = 13;
  private static final int CSTIME = 14;

  /**
   * A process's {@code stat} fields from its state on, as numbers (the state itself 0); {@code
   * null} when the process is gone. The command name before them may hold spaces and parentheses,
   * so the fields start after its last {@code ')'}.
   */
  private static long[] stat(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      return null;
    }
    String[] f = text.substring(text.lastIndexOf(')') + 2).trim().split(" ", -1);
    if (f.length <= CSTIME) {
      return null;
    }
    long[] fields = new long[CSTIME + 1];
    for (int i = 1; i <= CSTIME; i++) {
      fields[i] = Long.parseLong(f[i]);
    }
    return fields;
  }

  /** The clocks at one moment; -1 for a clock that cannot tell. */
  public record Reading(long jvm, long postgres, long machine) {

    /** The clocks now. */
    public static Reading now() {
      return new Reading(jvmNanos(), postgresNanos(), machineNanos());
    }

    /** The CPU time from {@code earlier} to this reading; -1 for a clock that cannot tell. */
    public Reading since(Reading earlier) {
      return new Reading(
          minus(jvm, earlier.jvm),
          minus(postgres, earlier.postgres),
          minus(machine, earlier.machine));
    }

    /** Two spans of CPU time added; -1 stays -1. */
    public Reading plus(Reading other) {
      return new Reading(
          add(jvm, other.jvm), add(postgres, other.postgres), add(machine, other.machine));
    }

    private static long minus(long later, long earlier) {
      return later < 0 || earlier < 0 ? -1 : later - earlier;
    }

    private static long add(long a, long b) {
      return a < 0 || b < 0 ? -1 : a + b;
    }
  }
}
