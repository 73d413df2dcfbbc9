package dev.relayer.dispatch;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.Lanes;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.health.BacklogGrouping;
import dev.relayer.store.ops.AuditEntry;
import dev.relayer.store.ops.DeadDeleted;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadGroup;
import dev.relayer.store.ops.DeadPage;
import dev.relayer.store.ops.DeadReplayed;
import dev.relayer.store.ops.DeadRow;
import dev.relayer.store.ops.DeadRowSummary;
import dev.relayer.store.ops.DeadRun;
import dev.relayer.store.ops.NewAuditEntry;
import dev.relayer.store.ops.ParkedKey;
import dev.relayer.store.ops.ReplayedRow;
import dev.relayer.store.ops.StoreOperations;
import dev.relayer.store.pass.Passes;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a person can do about parked ordering keys and dead rows. A key is parked when its head ran
 * out of attempts; it then holds that key only, until someone acts here. Every action on parked
 * keys runs in its own transaction on the given {@code DSLContext}, is logged ({@code store=},
 * {@code lane=}, {@code key=}), and notifies the lane's owner so that a released key moves at once.
 *
 * <h2>Dead rows</h2>
 *
 * Rows that ran out of attempts, that a transport rejected for good, or that an operator moved
 * there, wait in the dead table. {@link #deadGroups} groups them by error fingerprint, {@link
 * #deadRows} lists them and {@link #deadRow} shows one; {@link #replayDead} moves them back to the
 * outbox and {@link #purgeDead} deletes them. Every one takes a {@link DeadFilter}. The two actions
 * run in batches of at most {@code batchSize} rows (default {@value #DEFAULT_BATCH_SIZE}), each its
 * own transaction, over the rows that were dead when the action began (ids up to the highest dead
 * id then), and return counts. Rows that another operator's replay or purge holds are skipped, so
 * two operators acting on one group move or delete each row once between them.
 *
 * <p>A replayed row is pending again with no attempts, the same message id, headers, body, ordering
 * key and tenant, and a new outbox id; ids are drawn in the dead rows' id order, after every row of
 * the key already in the outbox, under the key's enqueue lock. So replayed rows of one key go out
 * in their original order, and never ahead of rows of their key still pending. A parked key stays
 * parked: its replayed rows wait behind the parked head, and the result names such keys ({@link
 * DeadReplayResult#parkedKeys()}); retry, release or dead-letter the head to let them go. The lanes
 * of replayed ordered rows are notified; unordered rows are handed to this process's dispatcher
 * when the operator comes from {@link Relayer#operator()}, and are otherwise sent by the next sweep
 * (without waiting out {@code recoveryDelay}).
 *
 * <pre>{@code
 * RelayerOperator operator = RelayerOperator.create(store, dsl);
 * for (ParkedKey parked : operator.parkedKeys()) {
 *   System.out.println(parked.orderingKey() + " " + parked.lastError());
 * }
 * operator.retryHead("customer-42");      // try the head again, with fresh attempts
 * operator.moveHeadToDead("customer-7");  // give up on the head; the key goes on with its next row
 * }</pre>
 *
 * <h2>Audit trail</h2>
 *
 * Every action that changes rows — {@link #replayDead}, {@link #purgeDead}, {@link #retryHead},
 * {@link #moveHeadToDead}, {@link #releaseLane} and {@link #releaseAll} — writes one row to the
 * operations table ({@link AuditEntry}): who ({@link #operatorName()}: the name given to {@link
 * #withOperator}, else the OS user), when, what (the operation and its filter, key or lane) and how
 * many rows. The row is written in the transaction of the action's first change and, for replay and
 * purge, which run in several transactions, its count grows in the transaction of each later batch:
 * whenever a batch commits, the count includes it, and a run that stops half way (a crash, a lost
 * connection) leaves the count of what it did. An action that changes nothing (a key that is no
 * longer parked, a filter that matches no row) writes no row. {@link #auditEntries} reads them.
 *
 * <p>Thread-safe. Needs no running dispatcher: the command line builds one from a plain connection.
 */
public final class RelayerOperator {

  /** Rows per batch of {@link #replayDead} and {@link #purgeDead} unless given: {@value}. */
  public static final int DEFAULT_BATCH_SIZE = 100;

  /** Groups {@link #deadGroups(DeadFilter)} returns at most: {@value}. */
  public static final int DEFAULT_GROUP_LIMIT = 100;

  private static final Logger log = LoggerFactory.getLogger(RelayerOperator.class);

  private final RelayerStore store;
  private final StoreOperations ops;
  private final Passes passes;
  private final DSLContext dsl;
  private final Clock clock;
  private final Consumer<List<Long>> handoff;
  private final String operatorName;

  private RelayerOperator(
      RelayerStore store,
      DSLContext dsl,
      Clock clock,
      Consumer<List<Long>> handoff,
      String operatorName) {
    this.store = store;
    this.ops = StoreOperations.of(store);
    this.passes = Passes.of(store);
    this.dsl = dsl;
    this.clock = clock;
    this.handoff = handoff;
    this.operatorName = operatorName;
  }

  /**
   * The name the audit trail records for this operator's actions when none was given: the {@code
   * user.name} system property (the OS user), or {@code unknown} when it is blank.
   */
  public static String defaultOperatorName() {
    String user = System.getProperty("user.name");
    if (user == null || user.isBlank()) {
      return "unknown";
    }
    String trimmed = user.strip();
    return trimmed.length() > NewAuditEntry.MAX_OPERATOR_LENGTH
        ? trimmed.substring(0, NewAuditEntry.MAX_OPERATOR_LENGTH)
        : trimmed;
  }

  /**
   * This operator acting as {@code name} in the audit trail: not blank, at most {@value
   * NewAuditEntry#MAX_OPERATOR_LENGTH} characters, no control characters.
   */
  public RelayerOperator withOperator(String name) {
    return new RelayerOperator(store, dsl, clock, handoff, NewAuditEntry.checkOperator(name));
  }

  /** Who the audit trail names for this operator's actions. */
  public String operatorName() {
    return operatorName;
  }

  /**
   * The newest audit rows, newest first: at most {@code limit} (1 to 10,000), and with {@code
   * since} only those of actions that began at or after it.
   */
  public List<AuditEntry> auditEntries(@Nullable Instant since, int limit) {
    return ops.auditEntries(dsl, since, checkLimit("limit", limit));
  }

  /** Operator actions on {@code store}'s tables through {@code dsl}, with the system UTC clock. */
  public static RelayerOperator create(RelayerStore store, DSLContext dsl) {
    return create(store, dsl, Clock.systemUTC());
  }

  /** Operator actions with the clock that stamps {@code failed_at} of dead-lettered heads. */
  public static RelayerOperator create(RelayerStore store, DSLContext dsl, Clock clock) {
    return create(store, dsl, clock, ids -> {});
  }

  /**
   * Operator actions that hand the ids of replayed unordered rows to {@code handoff} after each
   * batch commits (a {@link Relayer}'s dispatcher).
   */
  static RelayerOperator create(
      RelayerStore store, DSLContext dsl, Clock clock, Consumer<List<Long>> handoff) {
    return new RelayerOperator(
        Objects.requireNonNull(store, "store"),
        Objects.requireNonNull(dsl, "dsl"),
        Objects.requireNonNull(clock, "clock"),
        Objects.requireNonNull(handoff, "handoff"),
        defaultOperatorName());
  }

  /**
   * Everything {@code relayer status} shows, read now (by the operator's clock): the health report
   * with the default thresholds, the outbox grouped {@code by} transport, destination or tenant
   * (the {@code limit} largest groups one by one, the rest summed), the {@code limit}
   * longest-parked keys, the {@code limit} largest dead-row groups by fingerprint, the unexpired
   * leases and the instances holding them; see {@link RelayerStatus}. It only reads.
   *
   * @param limit 1 to {@value dev.relayer.store.health.BacklogQuery#MAX_LIMIT} (suggested: {@value
   *     RelayerStatus#DEFAULT_LIMIT})
   */
  public RelayerStatus status(BacklogGrouping by, int limit) {
    if (by == null) {
      throw new InvalidInputException("by must not be null");
    }
    return RelayerStatus.read(store, dsl, clock.instant(), by, limit);
  }

  /**
   * Every parked key of the store, by lane and key: key, lane, head id, attempts, last error and
   * since when it is parked.
   */
  public List<ParkedKey> parkedKeys() {
    return ops.parkedKeys(dsl, null);
  }

  /** The parked keys of one lane. */
  public List<ParkedKey> parkedKeys(int lane) {
    return ops.parkedKeys(dsl, checkLane(lane));
  }

  /** The parked head of {@code key}, if the key is parked. */
  public Optional<ParkedKey> parkedKey(String key) {
    return ops.parkedKey(dsl, checkKey(key));
  }

  /**
   * Makes the parked head of {@code key} pending again with fresh attempts; its lane's owner sends
   * it next. Returns false (and changes nothing) when the key is not parked.
   */
  public boolean retryHead(String key) {
    checkKey(key);
    int lane = laneOf(key);
    Optional<ParkedKey> retried =
        dsl.transactionResult(
            tx -> {
              Optional<ParkedKey> parked = ops.retryHead(tx.dsl(), operatorName, key);
              if (parked.isPresent()) {
                passes.notifyLanes(tx.dsl(), Set.of(lane));
              }
              return parked;
            });
    if (retried.isEmpty()) {
      log.info("store={} lane={} key={} retry asked, but the key is not parked", name(), lane, key);
      return false;
    }
    log.info(
        "store={} lane={} key={} id={} parked head retried by an operator (had {} attempts: {})",
        name(),
        lane,
        key,
        retried.get().headId(),
        retried.get().attempts(),
        retried.get().lastError());
    return true;
  }

  /**
   * Moves the parked head of {@code key} to the dead table (reason {@code operator}, its last error
   * kept) and lets the key go on with its next row. Returns false when the key is not parked.
   */
  public boolean moveHeadToDead(String key) {
    checkKey(key);
    int lane = laneOf(key);
    Optional<ParkedKey> moved =
        dsl.transactionResult(
            tx -> {
              Optional<ParkedKey> parked =
                  ops.moveHeadToDead(tx.dsl(), operatorName, key, clock.instant());
              if (parked.isPresent()) {
                passes.notifyLanes(tx.dsl(), Set.of(lane));
              }
              return parked;
            });
    if (moved.isEmpty()) {
      log.info(
          "store={} lane={} key={} dead-letter asked, but the key is not parked",
          name(),
          lane,
          key);
      return false;
    }
    log.warn(
        "store={} lane={} key={} id={} message_id={} parked head moved to dead rows by an operator;"
            + " the key goes on with its next row (last error: {})",
        name(),
        lane,
        key,
        moved.get().headId(),
        moved.get().messageId(),
        moved.get().lastError());
    return true;
  }

  /** Retries every parked head of {@code lane}, with fresh attempts; returns how many. */
  public int releaseLane(int lane) {
    return release(checkLane(lane));
  }

  /** Retries every parked head of the store, with fresh attempts; returns how many. */
  public int releaseAll() {
    return release(null);
  }

  private int release(@Nullable Integer lane) {
    StoreOperations.Released released =
        dsl.transactionResult(
            tx -> {
              StoreOperations.Released done = ops.release(tx.dsl(), operatorName, lane);
              Set<Integer> lanes = new TreeSet<>();
              done.listed().forEach(p -> lanes.add(p.lane()));
              if (done.count() > done.listed().size()) {
                // Keys parked between the listing and the release: wake the whole scope.
                lanes.addAll(lane == null ? allLanes() : Set.of(lane));
              }
              passes.notifyLanes(tx.dsl(), lanes);
              return done;
            });
    log.info(
        "store={} lane={} {} parked keys released by an operator",
        name(),
        lane == null ? "all" : lane.toString(),
        released.count());
    for (ParkedKey parked : released.listed()) {
      log.info(
          "store={} lane={} key={} id={} parked head released by an operator (had {} attempts)",
          name(),
          parked.lane(),
          parked.orderingKey(),
          parked.headId(),
          parked.attempts());
    }
    return released.count();
  }

  // ---------------------------------------------------------------------------------------------
  // Dead rows
  // ---------------------------------------------------------------------------------------------

  /**
   * The dead rows {@code filter} matches, grouped by error fingerprint (count, first and last
   * failure, a sample error, the destinations): most rows first, at most {@value
   * #DEFAULT_GROUP_LIMIT} groups.
   */
  public List<DeadGroup> deadGroups(DeadFilter filter) {
    return deadGroups(filter, DEFAULT_GROUP_LIMIT);
  }

  /** {@link #deadGroups(DeadFilter)}, at most {@code limit} groups (1 to 10,000). */
  public List<DeadGroup> deadGroups(DeadFilter filter, int limit) {
    return ops.deadGroups(dsl, checkFilter(filter), checkLimit("limit", limit));
  }

  /**
   * One page of the dead rows (every column but headers and body), in id order: {@code
   * DeadPage.first(filter, 50)}, then {@code page.after(lastId)} for the next.
   */
  public List<DeadRowSummary> deadRows(DeadPage page) {
    if (page == null) {
      throw new InvalidInputException("page must not be null");
    }
    return ops.deadRows(dsl, page);
  }

  /** The dead row {@code id} with every column, its headers and its body. */
  public Optional<DeadRow> deadRow(long id) {
    if (id < 1) {
      throw new InvalidInputException("id must be positive, was " + id);
    }
    return ops.deadRow(dsl, id);
  }

  /** How many dead rows {@code filter} matches (what a replay or purge would cover now). */
  public long deadCount(DeadFilter filter) {
    return ops.deadCount(dsl, checkFilter(filter));
  }

  /** {@link #replayDead(DeadFilter, int)} in batches of {@value #DEFAULT_BATCH_SIZE}. */
  public DeadReplayResult replayDead(DeadFilter filter) {
    return replayDead(filter, DEFAULT_BATCH_SIZE);
  }

  /**
   * Moves the dead rows {@code filter} matches back to the outbox (see the class documentation), at
   * most {@code batchSize} (1 to 10,000) per transaction, and wakes their lanes. Logged: a summary
   * at INFO, each row at DEBUG, and a WARN naming the parked keys its rows wait behind. Audited
   * (see the class documentation).
   */
  public DeadReplayResult replayDead(DeadFilter filter, int batchSize) {
    checkFilter(filter);
    checkLimit("batchSize", batchSize);
    OptionalLong upTo = ops.highestDeadId(dsl);
    long replayed = 0;
    long ordered = 0;
    int batches = 0;
    Set<String> parked = new TreeSet<>();
    DeadRun run = ops.replayRun(operatorName, filter);
    if (upTo.isPresent()) {
      DeadPage page = DeadPage.first(filter, batchSize).upTo(upTo.getAsLong());
      while (true) {
        DeadPage current = page;
        DeadReplayed batch =
            dsl.transactionResult(
                tx -> {
                  DeadReplayed moved = run.replay(tx.dsl(), current, clock.instant());
                  Set<Integer> lanes = new TreeSet<>();
                  moved.rows().forEach(r -> Optional.ofNullable(r.lane()).ifPresent(lanes::add));
                  passes.notifyLanes(tx.dsl(), lanes);
                  return moved;
                });
        run.committed();
        batches++;
        List<Long> unordered = new ArrayList<>();
        for (ReplayedRow row : batch.rows()) {
          if (row.orderingKey() == null) {
            unordered.add(row.outboxId());
          } else {
            ordered++;
          }
          log.debug(
              "store={} lane={} key={} id={} message_id={} dead row {} replayed by an operator",
              name(),
              row.lane(),
              row.orderingKey(),
              row.outboxId(),
              row.messageId(),
              row.deadId());
        }
        replayed += batch.rows().size();
        parked.addAll(batch.parkedKeys());
        if (!unordered.isEmpty()) {
          handoff.accept(List.copyOf(unordered));
        }
        if (batch.next().isEmpty()) {
          break;
        }
        page = page.after(batch.next().getAsLong());
      }
    }
    log.info(
        "store={} {} dead rows replayed by an operator ({} ordered) in {} batches; filter: {}",
        name(),
        replayed,
        ordered,
        batches,
        filter);
    if (!parked.isEmpty()) {
      log.warn(
          "store={} replayed rows of {} parked keys wait behind their parked heads: retry, release"
              + " or dead-letter the heads to let them go; keys: {}",
          name(),
          parked.size(),
          parked);
    }
    return new DeadReplayResult(replayed, ordered, parked, batches);
  }

  /** {@link #purgeDead(DeadFilter, int)} in batches of {@value #DEFAULT_BATCH_SIZE}. */
  public DeadPurgeResult purgeDead(DeadFilter filter) {
    return purgeDead(filter, DEFAULT_BATCH_SIZE);
  }

  /**
   * Deletes the dead rows {@code filter} matches — never another — at most {@code batchSize} (1 to
   * 10,000) per transaction. Logged at INFO with the filter and the count; audited (see the class
   * documentation).
   */
  public DeadPurgeResult purgeDead(DeadFilter filter, int batchSize) {
    checkFilter(filter);
    checkLimit("batchSize", batchSize);
    OptionalLong upTo = ops.highestDeadId(dsl);
    long purged = 0;
    int batches = 0;
    DeadRun run = ops.purgeRun(operatorName, filter);
    if (upTo.isPresent()) {
      DeadPage page = DeadPage.first(filter, batchSize).upTo(upTo.getAsLong());
      while (true) {
        DeadPage current = page;
        DeadDeleted batch = dsl.transactionResult(tx -> run.purge(tx.dsl(), current));
        run.committed();
        batches++;
        purged += batch.deleted();
        if (batch.next().isEmpty()) {
          break;
        }
        page = page.after(batch.next().getAsLong());
      }
    }
    log.info(
        "store={} {} dead rows purged by an operator in {} batches; filter: {}",
        name(),
        purged,
        batches,
        filter);
    return new DeadPurgeResult(purged, batches);
  }

  private static DeadFilter checkFilter(DeadFilter filter) {
    if (filter == null) {
      throw new InvalidInputException(
          "filter must not be null (DeadFilter.all() matches every row)");
    }
    return filter;
  }

  private static int checkLimit(String name, int value) {
    if (value < 1 || value > DeadPage.MAX_LIMIT) {
      throw new InvalidInputException(
          name + " must be between 1 and " + DeadPage.MAX_LIMIT + ", was " + value);
    }
    return value;
  }

  private Set<Integer> allLanes() {
    Set<Integer> lanes = new TreeSet<>();
    for (int lane = 0; lane < store.options().laneCount(); lane++) {
      lanes.add(lane);
    }
    return lanes;
  }

  private String name() {
    return store.displayName();
  }

  private int laneOf(String key) {
    return Lanes.laneOf(key, store.options().laneCount());
  }

  private int checkLane(int lane) {
    int count = store.options().laneCount();
    if (lane < 0 || lane >= count) {
      throw new InvalidInputException(
          "lane must be between 0 and " + (count - 1) + ", was " + lane);
    }
    return lane;
  }

  private static String checkKey(String key) {
    if (key == null || key.isBlank()) {
      throw new InvalidInputException("ordering key must not be blank");
    }
    return key;
  }
}
