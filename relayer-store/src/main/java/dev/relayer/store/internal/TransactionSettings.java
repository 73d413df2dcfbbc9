package dev.relayer.store.internal;

import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * Server settings that hold until the caller's transaction ends, as {@code set_config(name, value,
 * true)} calls: a statement can set them alongside its own work instead of a {@code SET LOCAL} of
 * its own.
 */
public final class TransactionSettings {

  /** The transaction's commit does not wait for the WAL flush. */
  public static final Field<String> NO_FLUSH_WAIT = local("synchronous_commit", "off");

  /**
   * The transaction's commit waits for the WAL flush again ({@code synchronous_commit = on}, the
   * server's default), whatever an earlier statement of it set: for a transaction that records a
   * claim before its send. Were that commit lost in a server crash, a message that kills its sender
   * would have been sent with no attempt counted.
   */
  public static final Field<String> FLUSH_WAIT = local("synchronous_commit", "on");

  /** Statements the server has prepared run their generic plan, not one planned per execution. */
  public static final Field<String> GENERIC_PLANS = local("plan_cache_mode", "force_generic_plan");

  /**
   * The planner avoids sequential scans wherever an index can serve. A generic plan is made at a
   * statement's first prepared execution on a connection and kept until the table's statistics
   * change; made on an empty outbox that no analyse has seen, it reads the whole table (a
   * sequential scan costs next to nothing there) and goes on doing so as the table and its dead row
   * versions grow. Every statement of a pass finds its rows by a key or an index, so the setting
   * changes no plan but those.
   */
  public static final Field<String> INDEX_SCANS = local("enable_seqscan", "off");

  /**
   * The planner reads an index in key order instead of through a bitmap ({@code enable_bitmapscan =
   * off}). A plain index scan marks the entries of rows dead to every transaction as it meets them,
   * so that later scans skip them without a heap visit; a bitmap scan never does. A lane pass finds
   * a lane's rows through the pending index, where each delivered row leaves an entry until a
   * vacuum removes it: through a bitmap, every pass visited the heap for every such entry of its
   * lanes, and under a steady load the claim's cost grew from one autovacuum visit to the next
   * (measured in {@code docs/benchmarks.md}, <i>Lanes under paced load</i>).
   */
  public static final Field<String> PLAIN_INDEX_SCANS = local("enable_bitmapscan", "off");

  private TransactionSettings() {}

  private static Field<String> local(String name, String value) {
    return DSL.function(
        "set_config", String.class, DSL.inline(name), DSL.inline(value), DSL.inline(true));
  }
}
