package dev.relayer.bench.db;

import dev.relayer.testkit.PrivatePostgres;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The PostgreSQL the harness runs on unless told {@code --external}: a cluster of its own ({@link
 * PrivatePostgres}: {@code initdb} in a temporary directory, a free loopback port, stopped and
 * deleted when the harness exits, also on failure), configured like a production server —
 * durability on, autovacuum on — with every setting that moves the figures stated here rather than
 * left to the version's defaults. Most values are PostgreSQL 15's defaults; {@code shared_buffers}
 * and {@code effective_cache_size} are sized for a small dedicated server instead of the defaults'
 * 128 MB and 4 GB, and {@code max_connections} leaves room for the pools of every system under
 * test.
 */
public final class BenchCluster {

  /** The settings written to the cluster's {@code postgresql.conf}, in report order. */
  public static final Map<String, String> SETTINGS = settings();

  private BenchCluster() {}

  private static Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("shared_buffers", "1GB");
    s.put("effective_cache_size", "4GB");
    s.put("work_mem", "4MB");
    s.put("max_connections", "200");
    s.put("fsync", "on");
    s.put("synchronous_commit", "on");
    s.put("full_page_writes", "on");
    s.put("wal_level", "replica");
    s.put("max_wal_size", "1GB");
    s.put("checkpoint_timeout", "5min");
    s.put("track_counts", "on");
    // Loaded for the statement costs some scenarios report; tracking is off unless a scenario
    // turns it on for its own database (StatementCosts).
    s.put("shared_preload_libraries", "pg_stat_statements");
    s.put("pg_stat_statements.track", "none");
    s.put("autovacuum", "on");
    s.put("autovacuum_max_workers", "3");
    s.put("autovacuum_naptime", "1min");
    s.put("autovacuum_vacuum_threshold", "50");
    s.put("autovacuum_vacuum_scale_factor", "0.2");
    s.put("autovacuum_vacuum_insert_threshold", "1000");
    s.put("autovacuum_vacuum_insert_scale_factor", "0.2");
    s.put("autovacuum_analyze_threshold", "50");
    s.put("autovacuum_analyze_scale_factor", "0.1");
    s.put("autovacuum_vacuum_cost_delay", "2ms");
    s.put("autovacuum_vacuum_cost_limit", "-1");
    s.put("vacuum_cost_limit", "200");
    return s;
  }

  /** Creates and starts the cluster with {@link #SETTINGS} and the database {@code bench}. */
  public static PrivatePostgres start() throws IOException, InterruptedException {
    return PrivatePostgres.start(
        new PrivatePostgres.Config("bench", "bench", SETTINGS, Optional.empty()));
  }
}
