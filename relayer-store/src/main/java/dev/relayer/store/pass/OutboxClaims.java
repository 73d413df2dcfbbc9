package dev.relayer.store.pass;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.internal.OutboxSql.CLAIMED;
import static dev.relayer.store.internal.OutboxSql.EXPIRES_AT;
import static dev.relayer.store.internal.OutboxSql.IDS;
import static dev.relayer.store.internal.OutboxSql.LIMIT;
import static dev.relayer.store.internal.OutboxSql.NOW;
import static dev.relayer.store.internal.OutboxSql.PENDING;
import static dev.relayer.store.internal.OutboxSql.TOKEN;
import static dev.relayer.store.internal.OutboxSql.claimBinds;
import static dev.relayer.store.internal.OutboxSql.eligible;
import static dev.relayer.store.internal.OutboxSql.eligibleById;
import static dev.relayer.store.internal.OutboxSql.stamp;
import static dev.relayer.store.internal.OutboxSql.updateClaimed;
import static dev.relayer.store.internal.OutboxSql.utc;
import static dev.relayer.store.internal.StoreChecks.atMost;
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
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.DeadMoves;
import dev.relayer.store.internal.ErrorText;
import dev.relayer.store.internal.HeadersJson;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreJdbc;
import dev.relayer.store.internal.TransactionSettings;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.ResultQuery;
import org.jooq.SelectSelectStep;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The unordered outbox statements every message goes through — the enqueue insert and key locks,
 * the claim by ids, the sweeper's page claim and lock, and the completing deletes — rendered once
 * per store (see {@link StoreJdbc}). The eligibility test compares {@code status} with the literal
 * {@code 'pending'}, so that a plan the server reuses can still use the partial pending index.
 */
public final class OutboxClaims {
  private static final RelayerOutbox O = RELAYER_OUTBOX;

  private static final Param<Long> AFTER_ID = param("afterId", Long.class);

  private static final Param<Long> UP_TO_ID = param("upToId", Long.class);

  private static final Param<OffsetDateTime> CREATED_BEFORE =
      param("createdBefore", OffsetDateTime.class);

  private static final Param<String> IN_FLIGHT = param("inFlight", String.class);

  /**
   * The mark of a row whose earlier claim is given its attempt back by this one: the mark of a send
   * with others ({@link ClaimedMessage#IN_FLIGHT}) when a row is sent alone, else null (no row).
   */
  private static final Param<String> REFUNDED_MARK = param("refundedMark", String.class);

  private static final Param<String[]> ERRORS = param("errors", String[].class);

  private static final Param<OffsetDateTime[]> RETRY_ATS =
      param("retryAts", OffsetDateTime[].class);

  private static final Param<Integer[]> REFUNDS = param("refunds", Integer[].class);

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

  OutboxClaims(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    // Direct dispatch commits its claim before it sends: the claim marks its rows in flight, so
    // that a row whose sender dies keeps the mark and the sweeper sends it alone (see
    // ClaimedMessage.IN_FLIGHT).
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
   * Locks up to {@link OutboxSql#LIMIT} eligible rows matching {@code which} in id order, skipping
   * rows another transaction holds, and stamps them.
   */
  private static Query claim(Condition which) {
    return stamp(name("claimable").fields("id").as(lockEligible(select(O.ID), which)));
  }

  /**
   * {@code select} of up to {@link OutboxSql#LIMIT} eligible rows matching {@code which}, in id
   * order, locked, skipping rows another transaction holds.
   */
  private static <R extends Record> ResultQuery<R> lockEligible(
      SelectSelectStep<R> select, Condition which) {
    return lock(select, which.and(eligible(O)));
  }

  /**
   * {@code select} of up to {@link OutboxSql#LIMIT} rows matching {@code which}, in id order,
   * locked, skipping rows another transaction holds.
   */
  private static <R extends Record> ResultQuery<R> lock(
      SelectSelectStep<R> select, Condition which) {
    return select.from(O).where(which).orderBy(O.ID).limit(LIMIT).forUpdate().skipLocked();
  }

  /**
   * The claim by ids: {@link #claim} with {@link OutboxSql#eligibleById}, marking the rows in
   * flight with {@link #IN_FLIGHT}, one more attempt each except a row marked {@link
   * #REFUNDED_MARK}; the rows come back with the {@code last_error} they had before.
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

  /** Claims rows by id to be sent with others: marked {@link ClaimedMessage#IN_FLIGHT}. */
  public Claim.Stamped claimByIds(DSLContext dsl, ClaimByIds request) {
    Objects.requireNonNull(request, "request");
    if (request.ids().isEmpty()) {
      return new Claim.Stamped(UUID.randomUUID(), request.now(), List.of());
    }
    return claimByIds(dsl, request, ClaimedMessage.IN_FLIGHT, null);
  }

  /**
   * Claims a row by id to be sent alone: marked {@link ClaimedMessage#SENT_ALONE}; a row marked
   * {@link ClaimedMessage#IN_FLIGHT} (a crash with others) gets no new attempt, its earlier claim's
   * counts for this one.
   */
  public Claim.Stamped claimAlone(DSLContext dsl, ClaimByIds request) {
    Objects.requireNonNull(request, "request");
    if (request.ids().size() != 1) {
      throw new IllegalArgumentException(
          "a claim alone takes exactly one id, got " + request.ids().size());
    }
    return claimByIds(dsl, request, ClaimedMessage.SENT_ALONE, ClaimedMessage.IN_FLIGHT);
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

  public Claim.Stamped claimPage(DSLContext dsl, ClaimPage request) {
    Objects.requireNonNull(request, "request");
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    Binds binds = pageBinds(claimBinds(request.now(), token, expiresAt), request);
    return new Claim.Stamped(token, expiresAt, claimed(jdbc, dsl, claimPage, binds, 0));
  }

  /**
   * The rows {@link #claimPage} would claim, locked and returned with one more attempt; nothing is
   * written.
   */
  public Claim.Locked lockPage(DSLContext dsl, ClaimPage request) {
    Objects.requireNonNull(request, "request");
    Binds binds = pageBinds(new Binds().set(NOW, utc(request.now())), request);
    List<ClaimedMessage> locked = claimed(jdbc, dsl, lockPage, binds, 1);
    return new Claim.Locked(UUID.randomUUID(), request.now().plus(request.claimDuration()), locked);
  }

  /**
   * The lowest and the highest pending unordered id above {@code floor}, and the snapshot's running
   * transaction ids, in one statement and one snapshot ({@link SweepBounds}).
   */
  public SweepBounds sweepBounds(DSLContext dsl, long floor) {
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

  public int deleteFenced(DSLContext dsl, UUID token, Collection<Long> ids) {
    return atMost("deleteFenced", updateClaimed(jdbc, dsl, deleteFenced, token, ids), ids.size());
  }

  /**
   * {@link #deleteFenced}, and the transaction's commit does not wait for the WAL flush; without a
   * round trip, and without the setting, when {@code ids} is empty.
   */
  public int deleteFencedWithoutFlushWait(DSLContext dsl, UUID token, Collection<Long> ids) {
    int deleted = updateClaimed(jdbc, dsl, deleteFencedWithoutFlushWait, token, ids);
    return atMost("deleteFencedWithoutFlushWait", deleted, ids.size());
  }

  /**
   * Marks rows still under {@code token} with {@code mark}, and gives back one attempt of each row
   * that carried {@code refundedMark} before (none when it is null).
   */
  private int mark(
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
  public int recordFailures(DSLContext dsl, UUID token, List<FailedSend> failures) {
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
    int updated =
        jdbc.update(
            dsl,
            recordFailures,
            new Binds()
                .set(IDS, ids)
                .set(ERRORS, errors)
                .set(RETRY_ATS, retryAts)
                .set(REFUNDS, refunds)
                .set(TOKEN, token));
    return atMost("recordFailures", updated, failures.size());
  }

  public int deleteLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids) {
    requireLockedRows("deleteLocked", claim, ids);
    if (ids.isEmpty()) {
      return 0;
    }
    int deleted = jdbc.update(dsl, deleteLocked, new Binds().set(IDS, ids.toArray(Long[]::new)));
    return atMost("deleteLocked", deleted, ids.size());
  }

  /**
   * Stamps rows of a {@linkplain Claim.Locked locked} claim with its token, expiry and their
   * attempt, as a stamping claim would have; the caller's transaction holds their row locks.
   * Returns how many, 0 without a round trip when {@code ids} is empty.
   */
  public int stampLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids) {
    requireLockedRows("stampLocked", claim, ids);
    if (ids.isEmpty()) {
      return 0;
    }
    int stamped =
        jdbc.update(
            dsl,
            stampLocked,
            new Binds()
                .set(IDS, ids.toArray(Long[]::new))
                .set(TOKEN, claim.token())
                .set(EXPIRES_AT, utc(claim.expiresAt())));
    return atMost("stampLocked", stamped, ids.size());
  }

  /** Moves claimed rows fenced by {@code token} to the dead table, in one statement. */
  public int moveToDead(DSLContext dsl, UUID token, DeadLetter letter) {
    if (letter.ids().isEmpty()) {
      return 0;
    }
    int moved =
        DeadMoves.move(
            jdbc.map(dsl),
            O.ID.eq(any(letter.ids().toArray(Long[]::new))).and(O.CLAIM_TOKEN.eq(token)),
            letter.reason(),
            letter.error(),
            letter.failedAt());
    return atMost("moveToDead", moved, letter.ids().size());
  }

  /**
   * Marks rows still under {@code token} {@linkplain ClaimedMessage#IN_FLIGHT in flight} with
   * others, for a claim that commits before its send; returns how many.
   */
  public int markInFlight(DSLContext dsl, UUID token, Collection<Long> ids) {
    int marked = mark(dsl, token, ids, ClaimedMessage.IN_FLIGHT, null);
    return atMost("markInFlight", marked, ids.size());
  }

  /**
   * Marks the row {@code id}, still under {@code token}, {@linkplain ClaimedMessage#SENT_ALONE sent
   * alone}, for a claim of that row alone that commits before its send, and gives back the attempt
   * of this claim when the row was {@linkplain ClaimedMessage#IN_FLIGHT in flight with others}
   * before it: the interrupted claim's attempt counts for this one. Returns whether the row was
   * still under the token; {@link ClaimedMessage#attemptsWhenSentAlone} says what the caller's
   * claimed row now reads.
   */
  public boolean markSentAlone(DSLContext dsl, UUID token, long id) {
    int marked = mark(dsl, token, List.of(id), ClaimedMessage.SENT_ALONE, ClaimedMessage.IN_FLIGHT);
    return atMost("markSentAlone", marked, 1) == 1;
  }

  private static void requireLockedRows(
      String operation, Claim.Locked claim, Collection<Long> ids) {
    Set<Long> held = new HashSet<>();
    claim.messages().forEach(m -> held.add(m.id()));
    for (Long id : ids) {
      if (!held.contains(id)) {
        throw new IllegalArgumentException(operation + ": id " + id + " is not in the claim");
      }
    }
  }

  private static @Nullable Instant instantOrNull(@Nullable OffsetDateTime value) {
    return value == null ? null : value.toInstant();
  }

  /**
   * Runs a claiming statement on {@code jdbc}; returns its rows as read from {@link
   * OutboxSql#CLAIMED}, with {@code extraAttempts} added, in id order.
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
