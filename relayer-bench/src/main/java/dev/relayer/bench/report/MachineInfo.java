package dev.relayer.bench.report;

import dev.relayer.bench.db.PgServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The machine and server a run measured: CPUs, memory, OS, JVM, PostgreSQL version and the settings
 * that move these figures.
 *
 * @param rows label to value, in display order
 */
public record MachineInfo(Map<String, String> rows) {

  /** PostgreSQL settings shown in the report. */
  static final List<String> SETTINGS =
      List.of(
          "shared_buffers",
          "synchronous_commit",
          "fsync",
          "full_page_writes",
          "wal_level",
          "wal_compression",
          "max_wal_size",
          "checkpoint_timeout",
          "work_mem",
          "effective_cache_size",
          "max_connections",
          "track_counts",
          "shared_preload_libraries",
          "pg_stat_statements.track",
          "autovacuum",
          "autovacuum_max_workers",
          "autovacuum_naptime",
          "autovacuum_vacuum_threshold",
          "autovacuum_vacuum_scale_factor",
          "autovacuum_vacuum_insert_threshold",
          "autovacuum_vacuum_insert_scale_factor",
          "autovacuum_analyze_threshold",
          "autovacuum_analyze_scale_factor",
          "autovacuum_vacuum_cost_delay",
          "autovacuum_vacuum_cost_limit",
          "vacuum_cost_limit",
          "old_snapshot_threshold");

  /**
   * Collects what can be seen from this JVM and from {@code server}; {@code serverKind} says where
   * the server came from (a private cluster or an external one), for the report.
   */
  public static MachineInfo collect(
      PgServer server, String serverKind, Optional<String> pgbenchVersion) throws SQLException {
    Map<String, String> rows = new LinkedHashMap<>();
    rows.put("CPUs (nproc)", Integer.toString(Runtime.getRuntime().availableProcessors()));
    rows.put("CPU model", cpuModel().orElse("unknown"));
    rows.put("memory", memory().orElse("unknown"));
    rows.put(
        "OS",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    rows.put(
        "JVM",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version")
            + ", max heap "
            + Runtime.getRuntime().maxMemory() / (1024 * 1024)
            + " MiB");
    try (Connection c = server.connectAdmin();
        Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT version()")) {
        rs.next();
        rows.put("PostgreSQL", rs.getString(1));
      }
      StringBuilder settings = new StringBuilder();
      for (String name : SETTINGS) {
        // missing_ok: a setting this server's version does not have shows as n/a.
        try (ResultSet rs = s.executeQuery("SELECT current_setting('" + name + "', true)")) {
          rs.next();
          if (settings.length() > 0) {
            settings.append(", ");
          }
          String value = rs.getString(1);
          settings.append(name).append('=').append(value == null ? "n/a" : value);
        }
      }
      rows.put("PostgreSQL settings", settings.toString());
    }
    rows.put(
        "PostgreSQL server",
        server.redactedUrl() + " (same machine as the JVM; " + serverKind + ")");
    pgbenchVersion.ifPresent(v -> rows.put("pgbench", v));
    return new MachineInfo(rows);
  }

  /** The 1, 5 and 15 minute load averages, if the OS shows them. */
  public static Optional<String> loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+", -1);
      return Optional.of(fields[0] + " " + fields[1] + " " + fields[2]);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> memory() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).stream()
          .filter(l -> l.startsWith("MemTotal:"))
          .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
          .map(kib -> String.format(Locale.ROOT, "%.1f GiB", kib / (1024.0 * 1024.0)))
          .findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
