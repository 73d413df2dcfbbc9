package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.OutboxQueries.PARKED;
import static dev.relayer.store.OutboxQueries.PENDING;
import static dev.relayer.store.OutboxQueries.utc;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.arrayGet;
import static org.jooq.impl.DSL.deleteFrom;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.unnest;
import static org.jooq.impl.DSL.update;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.ResultQuery;
import org.jooq.SelectSelectStep;
import org.jooq.Table;
import org.jooq.WithStep;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The unordered outbox statements every message goes through — the enqueue insert and key locks,
 * the claim by ids, the sweeper's page claim and lock, and the completing deletes — rendered once
 * per store (see {@link StoreJdbc}). The eligibility test compares {@code status} with the literal
 * {@code 'pending'}, so that a plan the server reuses can still use the partial pending index.
 */
final class OutboxJdbc {

  private static final RelayerOutbox O = RELAYER_OUTBOX;

  /** The columns a claim returns, in the order {@link #claimed} reads them. */
  static final List<Field<?>> CLAIMED =
      List.of(
          O.ID,
          O.MESSAGE_ID,
          O.TRANSPORT,
          O.DESTINATION,
          O.MESSAGE_TYPE,
          O.HEADERS,
          O.BODY,
          O.ORDERING_KEY,
          O.LANE,
          O.TENANT_ID,
          O.ATTEMPTS,
          O.CREATED_AT,
          O.LAST_ERROR,
          O.DELIVER_AT);

  static final Param<OffsetDateTime> NOW = param("now", OffsetDateTime.class);
  static final Param<Integer> LIMIT = param("limit", Integer.class);
  static final Param<Long[]> IDS = param("ids", Long[].class);
  static final Param<UUID> TOKEN = param("token", UUID.class);
  static final Param<OffsetDateTime> EXPIRES_AT = param("expiresAt", OffsetDateTime.class);
  private static final Param<Long> AFTER_ID = param("afterId", Long.class);
  private static final Param<Long> UP_TO_ID = param("upToId", Long.class);
  private static final Param<OffsetDateTime> CREATED_BEFORE =
      param("createdBefore", OffsetDateTime.class);
  private static final Param<String> IN_FLIGHT = param("inFlight", String.class);

  /**
   * The mark of a row whose earlier claim is given its attempt back by this one: the mark of a send
   * with others ({@link RelayerStore#IN_FLIGHT}) when a row is sent alone, else null (no row).
   */
  private static final Param<String> REFUNDED_MARK = param("refundedMark", String.class);

  private static final Param<String[]> ERRORS = param("errors", String[].class);
  private static final Param<OffsetDateTime[]> RETRY_ATS =
      param("retryAts", OffsetDateTime[].class);
  private static final Param<Integer[]> REFUNDS = param("refunds", Integer[].class);

  /** Most lock calls one statement carries (PostgreSQL allows 1664 select-list entries). */
  private static final int LOCKS_PER_STATEMENT = 500;

  /**
   * True, and the transaction's commit waits for the WAL flush ({@link
   * TransactionSettings#FLUSH_WAIT}): in the statements that mark rows in flight. Their claim
   * commits before its send, and a commit the server lost in a crash would leave a send that no
   * attempt counts.
   */
  private static final Condition FLUSH_WAIT =
      DSL.field(select(TransactionSettings.FLUSH_WAIT)).isNotNull();

  /**
   * True, and the transaction's commit does not wait for the WAL flush ({@link
   * TransactionSettings#NO_FLUSH_WAIT}): in the delete that completes a claim committed before its
   * send, in a transaction of its own. The setting rides on the statement instead of costing a
   * round trip of its own; the server evaluates the condition once, before the first row.
   */
  private static final Condition NO_FLUSH_WAIT =
      DSL.field(select(TransactionSettings.NO_FLUSH_WAIT)).isNotNull();

  /** The oldest transaction id still running, in the statement's snapshot. */
  private static final Field<Long> SNAPSHOT_XMIN =
      DSL.field("pg_snapshot_xmin(pg_current_snapshot())::text::bigint", Long.class);

  /** The first transaction id not yet assigned, in the statement's snapshot. */
  private static final Field<Long> SNAPSHOT_XMAX =
      DSL.field("pg_snapshot_xmax(pg_current_snapshot())::text::bigint", Long.class);

  /** Most rows one insert statement carries; a larger enqueue runs several, in order. */
  static final int ROWS_PER_INSERT = 100;

  private final StoreJdbc jdbc;
  private final RenderedStatement claimByIds;
  private final RenderedStatement claimPage;
  private final RenderedStatement lockPage;
  private final RenderedStatement sweepBounds;
  private final RenderedStatement deleteFenced;
  private final RenderedStatement deleteFencedWithoutFlushWait;
  private final RenderedStatement deleteLocked;
  private final RenderedStatement stampLocked;
  private final RenderedStatement markInFlight;
  private final RenderedStatement recordFailures;

  /** Inserts by {@link InsertShape}, rendered on first use. */
  private final Map<InsertShape, RenderedStatement> inserts = new ConcurrentHashMap<>();

  /** Key locks followed by an insert, by shape and number of locks, rendered on first use. */
  private final Map<LockedInsert, RenderedStatement> lockedInserts = new ConcurrentHashMap<>();

  /** {@code pg_advisory_xact_lock(namespace, hash)} per key. */
  private final StoreJdbc.Calls<Integer, Integer> keyLocks;

  OutboxJdbc(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    this.keyLocks = jdbc.calls("pg_advisory_xact_lock", Integer.class, Integer.class);
    // Direct dispatch commits its claim before it sends: the claim marks its rows in flight, so
    // that a row whose sender dies keeps the mark and the sweeper sends it alone (see
    // RelayerStore.IN_FLIGHT).
    this.claimByIds = jdbc.render(claimInFlight(O.ID.eq(any(IDS)).and(O.LANE.isNull())));
    this.claimPage = jdbc.render(claim(page()));
    this.lockPage = jdbc.render(lockEligible(select(CLAIMED), page()));
    // Both ends above the floor: with no pending row near the top, an unbounded max(id) would
    // walk back over every dead entry a held horizon keeps.
    Condition aboveFloor = O.LANE.isNull().and(O.STATUS.eq(inline(PENDING))).and(O.ID.gt(AFTER_ID));
    this.sweepBounds =
        jdbc.render(
            select(
                select(O.ID).from(O).where(aboveFloor).orderBy(O.ID).limit(inline(1)).asField(),
                select(DSL.max(O.ID)).from(O).where(aboveFloor).asField(),
                SNAPSHOT_XMIN,
                SNAPSHOT_XMAX));
    Condition sentUnderToken = O.ID.eq(any(IDS)).and(O.CLAIM_TOKEN.eq(TOKEN));
    this.deleteFenced = jdbc.render(deleteFrom(O).where(sentUnderToken));
    this.deleteFencedWithoutFlushWait =
        jdbc.render(deleteFrom(O).where(sentUnderToken).and(NO_FLUSH_WAIT));
    this.deleteLocked = jdbc.render(deleteFrom(O).where(O.ID.eq(any(IDS))));
    this.stampLocked =
        jdbc.render(
            update(O)
                .set(O.CLAIM_TOKEN, TOKEN)
                .set(O.CLAIM_EXPIRES_AT, EXPIRES_AT)
                .set(O.ATTEMPTS, O.ATTEMPTS.plus(1))
                .where(O.ID.eq(any(IDS))));
    this.markInFlight =
        jdbc.render(
            update(O)
                .set(O.LAST_ERROR, IN_FLIGHT)
                .set(O.ATTEMPTS, O.ATTEMPTS.minus(refunded()))
                .where(O.ID.eq(any(IDS)))
                .and(O.CLAIM_TOKEN.eq(TOKEN))
                .and(FLUSH_WAIT));
    // The i-th failure is (ids[i], errors[i], retryAts[i], refunds[i]).
    Table<?> failed = unnest(IDS).withOrdinality().as("failed", "id", "i");
    Field<Long> i = failed.field("i", Long.class);
    this.recordFailures =
        jdbc.render(
            update(O)
                .set(O.LAST_ERROR, arrayGet(ERRORS, i.cast(Integer.class)))
                .set(O.CLAIM_EXPIRES_AT, arrayGet(RETRY_ATS, i.cast(Integer.class)))
                // A refund gives back the attempt the claim counted, never below zero.
                .set(
                    O.ATTEMPTS,
                    greatest(O.ATTEMPTS.minus(arrayGet(REFUNDS, i.cast(Integer.class))), inline(0)))
                .from(failed)
                .where(O.ID.eq(failed.field("id", Long.class)))
                .and(O.CLAIM_TOKEN.eq(TOKEN)));
  }

  /**
   * 1 for a row whose {@code last_error} (as it was before the statement) is {@link
   * #REFUNDED_MARK}, else 0: the attempt of a claim with others that a crash interrupted, which a
   * claim of the row alone takes over instead of counting one more.
   */
  private static Field<Integer> refunded() {
    return DSL.when(O.LAST_ERROR.eq(REFUNDED_MARK), inline(1)).otherwise(inline(0));
  }

  /** Pending, due and not under a live claim or retry hold at {@link #NOW}, on {@code table}. */
  static Condition eligible(RelayerOutbox table) {
    return eligible(table, NOW);
  }

  /**
   * Pending, due and not under a live claim or retry hold at {@code now}, on {@code table};
   * boundaries at {@code now} included. The one eligibility predicate: the claims bind {@link
   * #NOW}, the backlog and health reads their own instant.
   */
  static Condition eligible(RelayerOutbox table, Field<OffsetDateTime> now) {
    return table.STATUS.eq(inline(PENDING)).and(dueAndFree(table, now));
  }

  /** Due and not under a live claim or retry hold at {@code now}, on {@code table}. */
  private static Condition dueAndFree(RelayerOutbox table, Field<OffsetDateTime> now) {
    Condition due = table.DELIVER_AT.isNull().or(table.DELIVER_AT.le(now));
    Condition free = table.CLAIM_EXPIRES_AT.isNull().or(table.CLAIM_EXPIRES_AT.le(now));
    return due.and(free);
  }

  /**
   * {@link #eligible} for a claim by ids, its status test written as {@code status <> 'parked'}:
   * the same rows, since the status check admits only pending and parked, but no partial index's
   * predicate follows from it, so the primary key searched by the ids is the one index such a claim
   * can use. With {@code status = 'pending'} a plan that does not know the ids (a generic plan on a
   * table not yet analysed) may search the pending index by {@code lane IS NULL} alone and filter
   * the ids after, walking every entry of an unordered row, the dead ones a held xmin horizon keeps
   * included (HeldHorizonClaimIT fails with {@code status = 'pending'}). It costs direct dispatch
   * some of its median latency at low load, for reasons not found (docs/benchmarks.md, "Direct
   * dispatch latency"). The lane claim's look-up of each head by its id uses it too.
   */
  static Condition eligibleById(RelayerOutbox table) {
    return table.STATUS.ne(inline(PARKED)).and(dueAndFree(table, NOW));
  }

  /**
   * A sweep page: unordered ids in the traversal's range, and either written before the recovery
   * cutoff or scheduled past their own {@code created_at} (not due when their transaction began, so
   * direct dispatch found nothing to send at the hand-off and the row waits for no one but the
   * sweeper; the eligibility test still holds it until {@code deliver_at}).
   */
  private static Condition page() {
    return O.LANE
        .isNull()
        .and(O.ID.gt(AFTER_ID))
        .and(O.ID.le(UP_TO_ID))
        .and(O.CREATED_AT.le(CREATED_BEFORE).or(O.DELIVER_AT.gt(O.CREATED_AT)));
  }

  /**
   * Locks up to {@link #LIMIT} eligible rows matching {@code which} in id order, skipping rows
   * another transaction holds, and stamps them.
   */
  private static Query claim(Condition which) {
    return stamp(name("claimable").fields("id").as(lockEligible(select(O.ID), which)));
  }

  /**
   * {@code select} of up to {@link #LIMIT} eligible rows matching {@code which}, in id order,
   * locked, skipping rows another transaction holds.
   */
  private static <R extends Record> ResultQuery<R> lockEligible(
      SelectSelectStep<R> select, Condition which) {
    return lock(select, which.and(eligible(O)));
  }

  /**
   * {@code select} of up to {@link #LIMIT} rows matching {@code which}, in id order, locked,
   * skipping rows another transaction holds.
   */
  private static <R extends Record> ResultQuery<R> lock(
      SelectSelectStep<R> select, Condition which) {
    return select.from(O).where(which).orderBy(O.ID).limit(LIMIT).forUpdate().skipLocked();
  }

  /**
   * The claim by ids: {@link #claim} with {@link #eligibleById}, marking the rows in flight with
   * {@link #IN_FLIGHT}, one more attempt each except a row marked {@link #REFUNDED_MARK}; the rows
   * come back with the {@code last_error} they had before.
   */
  private static Query claimInFlight(Condition which) {
    CommonTableExpression<Record2<Long, String>> claimable =
        name("claimable")
            .fields("id", "last_error")
            .as(lock(select(O.ID, O.LAST_ERROR), which.and(eligibleById(O))));
    List<Field<?>> returned = new ArrayList<>(CLAIMED);
    returned.set(returned.indexOf(O.LAST_ERROR), claimable.field("last_error", String.class));
    return DSL.with(claimable)
        .update(O)
        .set(O.CLAIM_TOKEN, TOKEN)
        .set(O.CLAIM_EXPIRES_AT, EXPIRES_AT)
        .set(O.ATTEMPTS, O.ATTEMPTS.plus(inline(1)).minus(refunded()))
        .set(O.LAST_ERROR, IN_FLIGHT)
        .from(claimable)
        .where(O.ID.eq(claimable.field("id", Long.class)))
        .and(FLUSH_WAIT)
        .returningResult(returned);
  }

  /**
   * The claim's UPDATE: stamps the rows whose ids the last CTE {@code claimable} (column {@code
   * id}) selected with {@link #TOKEN}, {@link #EXPIRES_AT} and one more attempt, and returns {@link
   * #CLAIMED}. The CTEs before it are {@code with}.
   */
  static Query stamp(CommonTableExpression<?> claimable, CommonTableExpression<?>... with) {
    List<CommonTableExpression<?>> ctes = new ArrayList<>(List.of(with));
    ctes.add(claimable);
    return stamped(DSL.with(ctes), claimable);
  }

  /** {@link #stamp} under {@code WITH RECURSIVE}: one of the CTEs {@code with} refers to itself. */
  static Query stampRecursive(
      CommonTableExpression<?> claimable, List<CommonTableExpression<?>> with) {
    List<CommonTableExpression<?>> ctes = new ArrayList<>(with);
    ctes.add(claimable);
    return stamped(DSL.withRecursive(ctes), claimable);
  }

  private static Query stamped(WithStep with, CommonTableExpression<?> claimable) {
    return with.update(O)
        .set(O.CLAIM_TOKEN, TOKEN)
        .set(O.CLAIM_EXPIRES_AT, EXPIRES_AT)
        .set(O.ATTEMPTS, O.ATTEMPTS.plus(inline(1)))
        .from(claimable)
        .where(O.ID.eq(claimable.field("id", Long.class)))
        .returningResult(CLAIMED);
  }

  /** The values of {@link #NOW}, {@link #TOKEN} and {@link #EXPIRES_AT} of a claim. */
  static Binds claimBinds(Instant now, UUID token, Instant expiresAt) {
    return new Binds().set(NOW, utc(now)).set(TOKEN, token).set(EXPIRES_AT, utc(expiresAt));
  }

  /**
   * Takes a transaction-scoped advisory lock on ({@code namespace}, key hash) for every ordering
   * key of {@code messages}: one lock per hash, taken in ascending order (PostgreSQL evaluates a
   * select list left to right) so that two writers never deadlock, a few hundred per round trip.
   * Writers of one key then commit in id order.
   */
  void lockKeys(DSLContext dsl, int namespace, List<NewMessage> messages) {
    List<String> keys = new ArrayList<>();
    for (NewMessage message : messages) {
      String key = message.orderingKey();
      if (key != null) {
        keys.add(key);
      }
    }
    lockKeyNames(dsl, namespace, keys);
  }

  /** {@link #lockKeys} for the ordering keys {@code keys}. */
  void lockKeyNames(DSLContext dsl, int namespace, Collection<String> keys) {
    List<Integer> all = keyHashes(keys);
    for (int from = 0; from < all.size(); from += LOCKS_PER_STATEMENT) {
      keyLocks.run(
          dsl, namespace, all.subList(from, Math.min(all.size(), from + LOCKS_PER_STATEMENT)));
    }
  }

  /**
   * Which optional columns an insert writes, and how many rows it carries. The optional columns
   * (ordering key and lane, schedule, tenant) are written only when some message of the batch has a
   * value for them: their defaults are null, and a shorter statement is cheaper to bind.
   */
  private record InsertShape(boolean ordered, boolean scheduled, boolean tenants, int rows) {

    static InsertShape of(List<NewMessage> messages) {
      boolean ordered = false;
      boolean scheduled = false;
      boolean tenants = false;
      for (NewMessage m : messages) {
        ordered |= m.ordered();
        scheduled |= m.deliverAt() != null;
        tenants |= m.tenantId() != null;
      }
      return new InsertShape(ordered, scheduled, tenants, messages.size());
    }

    List<Cells<?>> columns() {
      List<Cells<?>> columns =
          new ArrayList<>(
              List.of(MESSAGE_IDS, TRANSPORTS, DESTINATIONS, MESSAGE_TYPES, HEADERS, BODIES));
      if (ordered) {
        columns.add(ORDERING_KEYS);
        columns.add(LANES);
      }
      if (scheduled) {
        columns.add(DELIVER_ATS);
      }
      if (tenants) {
        columns.add(TENANT_IDS);
      }
      return columns;
    }
  }

  /**
   * The variables of one column of a multi-row insert, {@code r<row>_<column>}, one per row up to
   * {@link #ROWS_PER_INSERT}, made once.
   */
  private record Cells<T>(Field<T> column, List<Param<T>> rows) {

    static <T> Cells<T> of(Field<T> column) {
      List<Param<T>> rows = new ArrayList<>(ROWS_PER_INSERT);
      for (int row = 0; row < ROWS_PER_INSERT; row++) {
        rows.add(param("r" + row + "_" + column.getName(), column.getDataType()));
      }
      return new Cells<>(column, List.copyOf(rows));
    }

    Param<T> row(int row) {
      return rows.get(row);
    }
  }

  private static final Cells<UUID> MESSAGE_IDS = Cells.of(O.MESSAGE_ID);
  private static final Cells<String> TRANSPORTS = Cells.of(O.TRANSPORT);
  private static final Cells<String> DESTINATIONS = Cells.of(O.DESTINATION);
  private static final Cells<String> MESSAGE_TYPES = Cells.of(O.MESSAGE_TYPE);
  private static final Cells<JSONB> HEADERS = Cells.of(O.HEADERS);
  private static final Cells<byte[]> BODIES = Cells.of(O.BODY);
  private static final Cells<String> ORDERING_KEYS = Cells.of(O.ORDERING_KEY);
  private static final Cells<Integer> LANES = Cells.of(O.LANE);
  private static final Cells<OffsetDateTime> DELIVER_ATS = Cells.of(O.DELIVER_AT);
  private static final Cells<String> TENANT_IDS = Cells.of(O.TENANT_ID);

  private RenderedStatement renderInsert(InsertShape shape) {
    List<Cells<?>> columns = shape.columns();
    var insert = DSL.insertInto(O).columns(columns.stream().map(Cells::column).toList());
    for (int row = 0; row < shape.rows(); row++) {
      List<Field<?>> cells = new ArrayList<>(columns.size());
      for (Cells<?> column : columns) {
        cells.add(column.row(row));
      }
      insert = insert.values(cells);
    }
    return jdbc.render(insert.returningResult(O.ID));
  }

  /** The distinct lock hashes of {@code keys}, ascending: the order every writer locks in. */
  private static List<Integer> keyHashes(Collection<String> keys) {
    TreeSet<Integer> hashes = new TreeSet<>();
    for (String key : keys) {
      hashes.add(Lanes.stableHash(key));
    }
    return new ArrayList<>(hashes);
  }

  /**
   * {@link #lockKeys}, then {@link #insert}; returns the ids in input order. Up to {@link
   * #ROWS_PER_INSERT} messages go in one round trip: the locks and the insert are two statements of
   * one prepared statement, which the server runs in that order, so every identity value is drawn
   * under the keys' locks, as with two round trips. More take the two steps one after the other.
   * Runs in the caller's transaction, which holds the locks until it ends.
   */
  List<Long> lockKeysAndInsert(
      DSLContext dsl, int namespace, List<NewMessage> messages, int laneCount) {
    if (messages.size() > ROWS_PER_INSERT) {
      lockKeys(dsl, namespace, messages);
      return insert(dsl, messages, laneCount);
    }
    List<String> keys = new ArrayList<>();
    for (NewMessage message : messages) {
      if (message.orderingKey() != null) {
        keys.add(message.orderingKey());
      }
    }
    List<Integer> hashes = keyHashes(keys);
    InsertShape shape = InsertShape.of(messages);
    Binds binds = insertBinds(shape, messages, laneCount);
    keyLocks.put(binds, namespace, hashes);
    RenderedStatement statement =
        lockedInserts.computeIfAbsent(
            new LockedInsert(shape, hashes.size()),
            k ->
                keyLocks
                    .statement(k.locks())
                    .then(inserts.computeIfAbsent(k.shape(), this::renderInsert)));
    return sortedIds(jdbc.listLast(dsl, statement, binds, row -> row.getLong(1)));
  }

  /** The key of an insert that first takes {@code locks} key locks. */
  private record LockedInsert(InsertShape shape, int locks) {}

  /**
   * Inserts the messages, {@link #ROWS_PER_INSERT} per statement; returns their ids in input order.
   */
  List<Long> insert(DSLContext dsl, List<NewMessage> messages, int laneCount) {
    List<Long> ids = new ArrayList<>(messages.size());
    for (int from = 0; from < messages.size(); from += ROWS_PER_INSERT) {
      List<NewMessage> some =
          messages.subList(from, Math.min(messages.size(), from + ROWS_PER_INSERT));
      ids.addAll(insertRows(dsl, some, laneCount));
    }
    return ids;
  }

  private List<Long> insertRows(DSLContext dsl, List<NewMessage> messages, int laneCount) {
    InsertShape shape = InsertShape.of(messages);
    Binds binds = insertBinds(shape, messages, laneCount);
    return sortedIds(
        jdbc.list(
            dsl, inserts.computeIfAbsent(shape, this::renderInsert), binds, row -> row.getLong(1)));
  }

  /** Identity values are drawn in VALUES order, so ascending ids are the input order. */
  private static List<Long> sortedIds(List<Long> returned) {
    List<Long> ids = new ArrayList<>(returned);
    ids.sort(Comparator.naturalOrder());
    return ids;
  }

  /** The values of {@link #renderInsert}'s variables for {@code messages}. */
  private static Binds insertBinds(InsertShape shape, List<NewMessage> messages, int laneCount) {
    Binds binds = new Binds();
    for (int row = 0; row < messages.size(); row++) {
      NewMessage m = messages.get(row);
      binds
          .set(MESSAGE_IDS.row(row), m.messageId())
          .set(TRANSPORTS.row(row), m.transport())
          .set(DESTINATIONS.row(row), m.destination())
          .set(MESSAGE_TYPES.row(row), m.messageType())
          .set(HEADERS.row(row), HeadersJson.write(m.headers()))
          .set(BODIES.row(row), m.body());
      if (shape.ordered()) {
        String key = m.orderingKey();
        binds
            .set(ORDERING_KEYS.row(row), key)
            .set(LANES.row(row), key == null ? null : Lanes.laneOf(key, laneCount));
      }
      if (shape.scheduled()) {
        binds.set(DELIVER_ATS.row(row), utc(m.deliverAt()));
      }
      if (shape.tenants()) {
        binds.set(TENANT_IDS.row(row), m.tenantId());
      }
    }
    return binds;
  }

  /** Claims rows by id to be sent with others: marked {@link RelayerStore#IN_FLIGHT}. */
  Claim.Stamped claimByIds(DSLContext dsl, ClaimByIds request) {
    return claimByIds(dsl, request, RelayerStore.IN_FLIGHT, null);
  }

  /**
   * Claims a row by id to be sent alone: marked {@link RelayerStore#SENT_ALONE}; a row marked
   * {@link RelayerStore#IN_FLIGHT} (a crash with others) gets no new attempt, its earlier claim's
   * counts for this one.
   */
  Claim.Stamped claimAlone(DSLContext dsl, ClaimByIds request) {
    return claimByIds(dsl, request, RelayerStore.SENT_ALONE, RelayerStore.IN_FLIGHT);
  }

  private Claim.Stamped claimByIds(
      DSLContext dsl, ClaimByIds request, String mark, @Nullable String refundedMark) {
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    Binds binds =
        claimBinds(request.now(), token, expiresAt)
            .set(IDS, request.ids().toArray(Long[]::new))
            .set(LIMIT, request.ids().size())
            .set(IN_FLIGHT, mark)
            .set(REFUNDED_MARK, refundedMark);
    return new Claim.Stamped(token, expiresAt, claimed(jdbc, dsl, claimByIds, binds, 0));
  }

  Claim.Stamped claimPage(DSLContext dsl, ClaimPage request) {
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    Binds binds = pageBinds(claimBinds(request.now(), token, expiresAt), request);
    return new Claim.Stamped(token, expiresAt, claimed(jdbc, dsl, claimPage, binds, 0));
  }

  /**
   * The rows {@link #claimPage} would claim, locked and returned with one more attempt; nothing is
   * written.
   */
  Claim.Locked lockPage(DSLContext dsl, ClaimPage request) {
    Binds binds = pageBinds(new Binds().set(NOW, utc(request.now())), request);
    List<ClaimedMessage> locked = claimed(jdbc, dsl, lockPage, binds, 1);
    return new Claim.Locked(UUID.randomUUID(), request.now().plus(request.claimDuration()), locked);
  }

  /**
   * The lowest and the highest pending unordered id above {@code floor}, and the snapshot's running
   * transaction ids, in one statement and one snapshot ({@link SweepBounds}).
   */
  SweepBounds sweepBounds(DSLContext dsl, long floor) {
    return jdbc.first(
            dsl,
            sweepBounds,
            new Binds().set(AFTER_ID, floor),
            row ->
                new SweepBounds(
                    optionalLong(row.getObject(1, Long.class)),
                    optionalLong(row.getObject(2, Long.class)),
                    row.getLong(3),
                    row.getLong(4)))
        .orElseThrow();
  }

  private static OptionalLong optionalLong(@Nullable Long value) {
    return value == null ? OptionalLong.empty() : OptionalLong.of(value);
  }

  private static Binds pageBinds(Binds binds, ClaimPage request) {
    return binds
        .set(AFTER_ID, request.afterId())
        .set(UP_TO_ID, request.upToId())
        .set(CREATED_BEFORE, utc(request.createdBefore()))
        .set(LIMIT, request.limit());
  }

  int deleteFenced(DSLContext dsl, UUID token, Collection<Long> ids) {
    return updateClaimed(jdbc, dsl, deleteFenced, token, ids);
  }

  /**
   * {@link #deleteFenced}, and the transaction's commit does not wait for the WAL flush; without a
   * round trip, and without the setting, when {@code ids} is empty.
   */
  int deleteFencedWithoutFlushWait(DSLContext dsl, UUID token, Collection<Long> ids) {
    return updateClaimed(jdbc, dsl, deleteFencedWithoutFlushWait, token, ids);
  }

  /**
   * Runs a token-fenced write to the rows {@code ids} ({@link #IDS}, {@link #TOKEN}); returns how
   * many it changed, 0 without a round trip when {@code ids} is empty.
   */
  static int updateClaimed(
      StoreJdbc jdbc,
      DSLContext dsl,
      RenderedStatement statement,
      UUID token,
      Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.update(
        dsl, statement, new Binds().set(IDS, ids.toArray(Long[]::new)).set(TOKEN, token));
  }

  /**
   * Marks rows still under {@code token} with {@code mark}, and gives back one attempt of each row
   * that carried {@code refundedMark} before (none when it is null).
   */
  int markInFlight(
      DSLContext dsl,
      UUID token,
      Collection<Long> ids,
      String mark,
      @Nullable String refundedMark) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.update(
        dsl,
        markInFlight,
        new Binds()
            .set(IDS, ids.toArray(Long[]::new))
            .set(TOKEN, token)
            .set(IN_FLIGHT, mark)
            .set(REFUNDED_MARK, refundedMark));
  }

  /**
   * Records failed sends still under {@code token}, in one statement whose every value is a bind
   * value (never an inlined literal, whatever the session's {@code standard_conforming_strings}):
   * error texts come from brokers, which quote what they refused. Texts are stored as {@link
   * ErrorText#stored} makes them.
   */
  int recordFailures(DSLContext dsl, UUID token, List<FailedSend> failures) {
    if (failures.isEmpty()) {
      return 0;
    }
    Long[] ids = new Long[failures.size()];
    String[] errors = new String[failures.size()];
    OffsetDateTime[] retryAts = new OffsetDateTime[failures.size()];
    Integer[] refunds = new Integer[failures.size()];
    for (int i = 0; i < failures.size(); i++) {
      FailedSend failure = failures.get(i);
      ids[i] = failure.id();
      errors[i] = ErrorText.stored(failure.error());
      retryAts[i] = utc(failure.retryAt());
      refunds[i] = failure.refund() ? 1 : 0;
    }
    return jdbc.update(
        dsl,
        recordFailures,
        new Binds()
            .set(IDS, ids)
            .set(ERRORS, errors)
            .set(RETRY_ATS, retryAts)
            .set(REFUNDS, refunds)
            .set(TOKEN, token));
  }

  int deleteLocked(DSLContext dsl, Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.update(dsl, deleteLocked, new Binds().set(IDS, ids.toArray(Long[]::new)));
  }

  /**
   * Stamps rows of a {@linkplain Claim.Locked locked} claim with its token, expiry and their
   * attempt, as a stamping claim would have; the caller's transaction holds their row locks.
   * Returns how many, 0 without a round trip when {@code ids} is empty.
   */
  int stampLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.update(
        dsl,
        stampLocked,
        new Binds()
            .set(IDS, ids.toArray(Long[]::new))
            .set(TOKEN, claim.token())
            .set(EXPIRES_AT, utc(claim.expiresAt())));
  }

  private static @Nullable Instant instantOrNull(@Nullable OffsetDateTime value) {
    return value == null ? null : value.toInstant();
  }

  /**
   * Runs a claiming statement on {@code jdbc}; returns its rows as read from {@link #CLAIMED}, with
   * {@code extraAttempts} added, in id order.
   */
  static List<ClaimedMessage> claimed(
      StoreJdbc jdbc, DSLContext dsl, RenderedStatement statement, Binds binds, int extraAttempts) {
    List<ClaimedMessage> claimed =
        new ArrayList<>(
            jdbc.list(
                dsl,
                statement,
                binds,
                r ->
                    new ClaimedMessage(
                        r.getLong(1),
                        r.getObject(2, UUID.class),
                        r.getString(3),
                        r.getString(4),
                        r.getString(5),
                        HeadersJson.read(r.getString(6)),
                        r.getBytes(7),
                        r.getString(8),
                        r.getObject(9, Integer.class),
                        r.getString(10),
                        r.getInt(11) + extraAttempts,
                        r.getObject(12, OffsetDateTime.class).toInstant(),
                        r.getString(13),
                        instantOrNull(r.getObject(14, OffsetDateTime.class)))));
    claimed.sort(Comparator.comparingLong(ClaimedMessage::id));
    return claimed;
  }
}
