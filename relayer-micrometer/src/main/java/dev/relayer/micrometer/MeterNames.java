package dev.relayer.micrometer;

import java.util.List;

/**
 * The names of the meters {@link RelayerMetrics} registers, in Micrometer's dotted form (a
 * Prometheus registry writes {@code relayer.outbox.sent} as {@code relayer_outbox_sent_total},
 * {@code relayer.outbox.oldest.age} as {@code relayer_outbox_oldest_age_seconds}). Every meter
 * carries the tag {@code store}; the others are listed per meter.
 */
public final class MeterNames {

  private MeterNames() {}

  /** Timer: one {@code enqueue} call. */
  public static final String ENQUEUE = "relayer.outbox.enqueue";

  /** Counter: messages written by {@code enqueue}. */
  public static final String ENQUEUED = "relayer.outbox.enqueued";

  /** Timer ({@code transport}): from a row becoming due to its send being recorded. */
  public static final String COMMIT_TO_SEND = "relayer.outbox.commit.to.send";

  /** Timer ({@code transport}, {@code outcome}): one transport call, a native batch. */
  public static final String SEND = "relayer.outbox.send";

  /** Distribution summary ({@code transport}): rows per transport call. */
  public static final String SEND_BATCH_SIZE = "relayer.outbox.send.batch.size";

  /** Timer ({@code kind}): one pass of direct dispatch, the sweeper, a lane or cleanup. */
  public static final String PASS = "relayer.pass";

  /** Counter ({@code transport}): rows the broker accepted. */
  public static final String SENT = "relayer.outbox.sent";

  /** Counter ({@code transport}, {@code reason}): failed sends of rows. */
  public static final String FAILED = "relayer.outbox.failed";

  /** Counter ({@code transport}, {@code reason}): rows moved to the dead table. */
  public static final String DEAD = "relayer.outbox.dead";

  /** Counter ({@code transport}): ordered heads parked for an operator. */
  public static final String PARKED = "relayer.outbox.parked";

  /** Counter: ids handed over after commit and dropped because the queue was full. */
  public static final String HANDOFFS_DROPPED = "relayer.outbox.handoffs.dropped";

  /** Counter ({@code consumer}): messages the inbox reported as duplicates. */
  public static final String INBOX_DUPLICATES = "relayer.inbox.duplicates";

  /** Counter ({@code table}): rows cleanup deleted. */
  public static final String CLEANUP_DELETED = "relayer.cleanup.deleted";

  /** Gauge: eligible rows (pending, due, not claimed, not waiting out a retry). */
  public static final String ELIGIBLE = "relayer.outbox.eligible";

  /** Gauge (seconds): age of the oldest due pending row, eligible or not. */
  public static final String OLDEST_AGE = "relayer.outbox.oldest.age";

  /** Gauge (seconds): age of the oldest eligible row. */
  public static final String OLDEST_ELIGIBLE_AGE = "relayer.outbox.oldest.eligible.age";

  /** Gauge: rows waiting out a retry. */
  public static final String RETRYING = "relayer.outbox.retrying";

  /**
   * Gauge: failing rows, pending and due, that failed at least once and were not sent since
   * (waiting out a retry, due again, or claimed for another try).
   */
  public static final String FAILING = "relayer.outbox.failing";

  /**
   * Gauge (seconds): how long the oldest failing row has been due, which bounds how long it has had
   * only failures; 0 when none.
   */
  public static final String OLDEST_FAILING_AGE = "relayer.outbox.oldest.failing.age";

  /**
   * Gauge: transports this process counts as failing (every send of the last minute failed, or
   * their failed rows still wait out a retry); 0 in a process that does not send.
   */
  public static final String TRANSPORTS_FAILING = "relayer.transports.failing";

  /**
   * Gauge: 1 when the last health check's outbox read stopped at its row limit, so {@link
   * #ELIGIBLE} and {@link #RETRYING} count only the oldest due rows (lower bounds); else 0.
   */
  public static final String READ_LIMITED = "relayer.outbox.read.limited";

  /** Gauge: ordering keys parked for an operator. */
  public static final String PARKED_KEYS = "relayer.outbox.parked.keys";

  /** Gauge: rows in the dead table. */
  public static final String DEAD_ROWS = "relayer.outbox.dead.rows";

  /** Gauge ({@code kind}, {@code holder}): live leases. */
  public static final String LEASE_HOLDERS = "relayer.lease.holders";

  /** Gauge ({@code table}): dead tuples of Relayer's tables. */
  public static final String TABLE_DEAD_TUPLES = "relayer.table.dead.tuples";

  /** Gauge (transaction ids): age of the oldest xmin horizon holder. */
  public static final String XMIN_HORIZON_AGE = "relayer.xmin.horizon.age";

  /** Gauge (seconds): how long the oldest horizon-holding session's transaction has been open. */
  public static final String XMIN_HORIZON_TRANSACTION_AGE = "relayer.xmin.horizon.transaction.age";

  /**
   * Timer: how long each gauge refresh took (one health check, whether it succeeded or failed). Its
   * time also spaces the refreshes: see {@link RelayerMetrics#start()}.
   */
  public static final String GAUGE_REFRESH = "relayer.metrics.refresh";

  /** Counter: gauge refreshes that failed (their gauges read NaN until the next success). */
  public static final String GAUGE_REFRESH_FAILURES = "relayer.metrics.refresh.failures";

  /** Every name above. */
  public static final List<String> ALL =
      List.of(
          ENQUEUE,
          ENQUEUED,
          COMMIT_TO_SEND,
          SEND,
          SEND_BATCH_SIZE,
          PASS,
          SENT,
          FAILED,
          DEAD,
          PARKED,
          HANDOFFS_DROPPED,
          INBOX_DUPLICATES,
          CLEANUP_DELETED,
          ELIGIBLE,
          OLDEST_AGE,
          OLDEST_ELIGIBLE_AGE,
          RETRYING,
          FAILING,
          OLDEST_FAILING_AGE,
          TRANSPORTS_FAILING,
          READ_LIMITED,
          PARKED_KEYS,
          DEAD_ROWS,
          LEASE_HOLDERS,
          TABLE_DEAD_TUPLES,
          XMIN_HORIZON_AGE,
          XMIN_HORIZON_TRANSACTION_AGE,
          GAUGE_REFRESH,
          GAUGE_REFRESH_FAILURES);
}
