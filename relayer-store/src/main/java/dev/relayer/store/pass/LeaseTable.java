package dev.relayer.store.pass;

import static dev.relayer.jooq.generated.Tables.RELAYER_LEASES;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.arrayAgg;
import static org.jooq.impl.DSL.deleteFrom;
import static org.jooq.impl.DSL.insertInto;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.update;
import static org.jooq.impl.DSL.with;

import dev.relayer.api.InvalidInputException;
import dev.relayer.jooq.generated.tables.RelayerLeases;
import dev.relayer.jooq.generated.tables.records.RelayerLeasesRecord;
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreChecks;
import dev.relayer.store.internal.StoreJdbc;
import dev.relayer.store.internal.TransactionSettings;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Converter;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Table;
import org.jooq.UpdateConditionStep;
import org.jooq.UpdateResultStep;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jooq.types.DayToSecond;
import org.jspecify.annotations.Nullable;

/**
 * Every statement on the lease table. Times come from the database clock ({@code
 * clock_timestamp()}), never from a JVM. Every sweep and lane pass takes and renews a lease, so the
 * statements are rendered once per store (see {@link StoreJdbc}).
 */
public final class LeaseTable {
  private static final RelayerLeases L = RELAYER_LEASES;

  private static final Param<String> NAME = param("name", String.class);

  private static final Param<String[]> NAMES = param("names", String[].class);

  private static final Param<String> OWNER = param("owner", String.class);

  /** A lease's duration, bound as a {@link Duration} (ISO 8601 text, which PostgreSQL reads). */
  private static final Param<Duration> DURATION =
      param(
          "duration",
          SQLDataType.INTERVALDAYTOSECOND.asConvertedDataType(
              Converter.ofNullable(
                  DayToSecond.class,
                  Duration.class,
                  DayToSecond::toDuration,
                  DayToSecond::valueOf)));

  private static final Field<OffsetDateTime> EXPIRY = clock().plus(DURATION);

  private final StoreJdbc jdbc;

  private final RenderedStatement keep;

  private final RenderedStatement startPassAndKeep;

  private final RenderedStatement lockRow;

  private final RenderedStatement exists;

  private final RenderedStatement insert;

  private final RenderedStatement takeOver;

  private final RenderedStatement renew;

  private final RenderedStatement release;

  LeaseTable(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    RelayerLeases locked = L.as("locked");
    // Every lease named in :names whose row no other transaction holds, that :owner holds or that
    // has expired, taken over; returns the names taken, their new expiry and whether another
    // owner held them (the locked row's owner is read before the update).
    Table<Record2<String, String>> before =
        select(locked.NAME, locked.OWNER)
            .from(locked)
            .where(locked.NAME.eq(any(NAMES)))
            .forUpdate()
            .skipLocked()
            .asTable("before");
    Field<String> beforeName = before.field(locked.NAME);
    Field<String> beforeOwner = before.field(locked.OWNER);
    UpdateResultStep<Record3<String, OffsetDateTime, Boolean>> keep =
        update(L)
            .set(L.OWNER, OWNER)
            .set(L.EXPIRES_AT, EXPIRY)
            .from(before)
            .where(L.NAME.eq(beforeName))
            .and(L.OWNER.eq(OWNER).or(L.EXPIRES_AT.le(clock())))
            .returningResult(L.NAME, L.EXPIRES_AT, DSL.field(beforeOwner.ne(OWNER)));
    this.keep = jdbc.render(keep);
    CommonTableExpression<Record3<String, OffsetDateTime, Boolean>> kept =
        name("kept").fields("name", "expires_at", "taken_over").as(keep);
    // An aggregate without GROUP BY returns one row even when nothing was kept, so the settings
    // are always made. They come last, so that the columns kept() reads stay the first three.
    this.startPassAndKeep =
        jdbc.render(
            with(kept)
                .select(
                    arrayAgg(kept.field(0, String.class)),
                    min(kept.field(1, OffsetDateTime.class)),
                    arrayAgg(kept.field(0, String.class)).filterWhere(kept.field(2, Boolean.class)),
                    TransactionSettings.NO_FLUSH_WAIT,
                    TransactionSettings.GENERIC_PLANS,
                    TransactionSettings.INDEX_SCANS,
                    TransactionSettings.PLAIN_INDEX_SCANS)
                .from(kept));
    this.lockRow =
        jdbc.render(
            select(L.OWNER, L.EXPIRES_AT, DSL.field(L.EXPIRES_AT.le(clock())))
                .from(L)
                .where(L.NAME.eq(NAME))
                .forUpdate()
                .skipLocked());
    this.exists = jdbc.render(selectOne().from(L).where(L.NAME.eq(NAME)));
    this.insert =
        jdbc.render(
            insertInto(L, L.NAME, L.OWNER, L.EXPIRES_AT)
                .values(NAME, OWNER, EXPIRY)
                .onConflictDoNothing()
                .returningResult(L.EXPIRES_AT));
    this.takeOver = jdbc.render(takeOver(DSL.noCondition()));
    this.renew = jdbc.render(renewal());
    this.release = jdbc.render(deleteFrom(L).where(L.NAME.eq(NAME)).and(L.OWNER.eq(OWNER)));
  }

  /**
   * Makes {@code owner} the lease's owner until now plus the duration, where {@code condition}
   * holds; returns the new expiry.
   */
  private static UpdateResultStep<Record1<OffsetDateTime>> takeOver(Condition condition) {
    return update(L)
        .set(L.OWNER, OWNER)
        .set(L.EXPIRES_AT, EXPIRY)
        .where(L.NAME.eq(NAME))
        .and(condition)
        .returningResult(L.EXPIRES_AT);
  }

  /**
   * Restarts the expiry of the leases named in {@code :names} that {@code :owner} holds; bound by
   * {@link #binds}.
   */
  static UpdateConditionStep<RelayerLeasesRecord> renewal() {
    return update(L).set(L.EXPIRES_AT, EXPIRY).where(L.NAME.eq(any(NAMES))).and(L.OWNER.eq(OWNER));
  }

  static Field<OffsetDateTime> clock() {
    return DSL.function("clock_timestamp", SQLDataType.TIMESTAMPWITHTIMEZONE);
  }

  /** The values of the lease statements' parameters for {@code request}. */
  static Binds binds(LeaseRequest request) {
    return binds(List.of(request)).set(NAME, request.name());
  }

  /**
   * The values of the statements on several leases at once ({@link #renewal}, the keep of {@link
   * #startLeasedPass}) for {@code requests}, which share one owner and duration.
   */
  static Binds binds(List<LeaseRequest> requests) {
    LeaseRequest first = requests.get(0);
    return new Binds()
        .set(NAMES, requests.stream().map(LeaseRequest::name).toArray(String[]::new))
        .set(OWNER, first.owner())
        .set(DURATION, first.duration());
  }

  /**
   * Takes the lease for a pass: makes sure its row exists, locks it (skipping it when another
   * transaction holds it), and takes it over if this owner holds it or it has expired. The row lock
   * lasts until the caller's transaction ends.
   */
  public LeaseOutcome tryAcquireLease(DSLContext dsl, LeaseRequest request) {
    Binds binds = binds(request);
    // The usual case in one statement: the row exists, no other transaction holds it, and this
    // owner holds the lease or it has expired.
    Optional<LeaseOutcome.Acquired> kept =
        jdbc.first(
            dsl,
            keep,
            binds,
            row ->
                new LeaseOutcome.Acquired(
                    row.getObject(2, OffsetDateTime.class).toInstant(),
                    row.getBoolean(3) ? LeaseOutcome.How.TAKEN_OVER : LeaseOutcome.How.KEPT));
    return tryAcquire(dsl, request, binds, kept);
  }

  /**
   * {@link #startLeasedPass(DSLContext, List)} for a pass under one lease: the pass's transaction
   * settings and the lease in one statement in the usual case.
   */
  public LeaseOutcome startLeasedPass(DSLContext dsl, LeaseRequest lease) {
    return startLeasedPass(dsl, List.of(Objects.requireNonNull(lease, "lease"))).get(0);
  }

  /**
   * Starts one of Relayer's background passes (a sweep, a lane pass) in the caller's transaction
   * and takes each of {@code leases} (one owner and duration, distinct names) as {@link
   * #tryAcquireLease} does — all in one statement when each lease is this owner's or has expired
   * and no other transaction holds its row; the outcomes in the order of {@code leases}. The pass's
   * commit does not wait for the WAL flush, and the statements the server has prepared run their
   * generic plan rather than one made for each execution's values ({@code plan_cache_mode =
   * force_generic_plan}): planning a keyset page or a lane's heads for given values reads the
   * primary key's current lowest and highest entries, and where rows were just deleted at either
   * end (a pass's own deletes, direct dispatch deleting the newest rows) that means walking every
   * dead entry there, on every pass. The planner also avoids sequential scans ({@code
   * enable_seqscan = off}): a generic plan made on an empty outbox that no analyse has seen reads
   * the whole table — a pass's fenced delete by ids included — and keeps doing so as the table and
   * its dead row versions grow. Nor does it read an index through a bitmap ({@code
   * enable_bitmapscan = off}): a plain index scan marks the entries of rows dead to every
   * transaction as it meets them, a bitmap scan never does, and a lane's heads read through a
   * bitmap visited the heap for every entry its delivered rows left in the pending index until the
   * next vacuum (docs/benchmarks.md, "Lanes under paced load"). The settings end with the
   * transaction.
   */
  public List<LeaseOutcome> startLeasedPass(DSLContext dsl, List<LeaseRequest> leases) {
    List<LeaseRequest> requests = sameOwner(leases);
    Kept kept = jdbc.first(dsl, startPassAndKeep, binds(requests), LeaseTable::kept).orElseThrow();
    // The rest in name order: inserting a missing lease row waits for another transaction's
    // insert of the same name, and two passes that insert in one order cannot deadlock.
    Map<String, LeaseOutcome> outcomes = new HashMap<>();
    for (LeaseRequest request : requests) {
      if (kept.names().contains(request.name())) {
        outcomes.put(
            request.name(),
            new LeaseOutcome.Acquired(
                Objects.requireNonNull(kept.expiresAt(), "a kept lease has an expiry").toInstant(),
                kept.takenOver().contains(request.name())
                    ? LeaseOutcome.How.TAKEN_OVER
                    : LeaseOutcome.How.KEPT));
      }
    }
    requests.stream()
        .filter(request -> !outcomes.containsKey(request.name()))
        .sorted(Comparator.comparing(LeaseRequest::name))
        .forEach(
            request ->
                outcomes.put(
                    request.name(), tryAcquire(dsl, request, binds(request), Optional.empty())));
    return requests.stream().map(request -> outcomes.get(request.name())).toList();
  }

  /**
   * The names the keep took, the earliest of their new expiries, and the names among them that
   * another owner held until they expired.
   */
  private record Kept(
      Set<String> names, @Nullable OffsetDateTime expiresAt, Set<String> takenOver) {}

  private static Kept kept(ResultSet row) throws SQLException {
    Set<String> names = names(row.getArray(1));
    if (names.isEmpty()) {
      return new Kept(Set.of(), null, Set.of());
    }
    return new Kept(names, row.getObject(2, OffsetDateTime.class), names(row.getArray(3)));
  }

  private static Set<String> names(Array names) throws SQLException {
    if (names == null) {
      return Set.of();
    }
    try {
      return new HashSet<>(List.of((String[]) names.getArray()));
    } finally {
      names.free();
    }
  }

  /** The rest of {@link #tryAcquire} once the one-statement keep found {@code kept}. */
  private LeaseOutcome tryAcquire(
      DSLContext dsl, LeaseRequest request, Binds binds, Optional<LeaseOutcome.Acquired> kept) {
    if (kept.isPresent()) {
      return kept.get();
    }
    Optional<Locked> current = lockRow(dsl, binds);
    if (current.isEmpty()) {
      // Either the row does not exist yet, or another pass holds its lock. A plain read tells which
      // without waiting: it sees the last committed version of a locked row.
      if (exists(dsl, binds)) {
        return new LeaseOutcome.Busy();
      }
      Optional<OffsetDateTime> inserted = expiry(dsl, insert, binds);
      if (inserted.isPresent()) {
        return new LeaseOutcome.Acquired(inserted.get().toInstant(), LeaseOutcome.How.CREATED);
      }
      current = lockRow(dsl, binds);
      if (current.isEmpty()) {
        return new LeaseOutcome.Busy();
      }
    }
    Locked row = current.get();
    if (!request.owner().equals(row.owner()) && !row.expired()) {
      return new LeaseOutcome.HeldByOther(row.owner(), row.expiresAt().toInstant());
    }
    return new LeaseOutcome.Acquired(
        expiry(dsl, takeOver, binds).orElseThrow().toInstant(),
        request.owner().equals(row.owner()) ? LeaseOutcome.How.KEPT : LeaseOutcome.How.TAKEN_OVER);
  }

  private record Locked(String owner, OffsetDateTime expiresAt, boolean expired) {}

  /** Locks the lease row for this transaction, or finds nothing if it is absent or locked. */
  private Optional<Locked> lockRow(DSLContext dsl, Binds binds) {
    return jdbc.first(
        dsl,
        lockRow,
        binds,
        row ->
            new Locked(
                row.getString(1), row.getObject(2, OffsetDateTime.class), row.getBoolean(3)));
  }

  private boolean exists(DSLContext dsl, Binds binds) {
    return jdbc.first(dsl, exists, binds, row -> true).isPresent();
  }

  /** Runs a statement returning {@code expires_at} of at most one row. */
  private Optional<OffsetDateTime> expiry(
      DSLContext dsl, RenderedStatement statement, Binds binds) {
    return jdbc.first(dsl, statement, binds, row -> row.getObject(1, OffsetDateTime.class));
  }

  /** Restarts the lease's expiry from now; false when the owner no longer holds it. */
  public boolean renewLease(DSLContext dsl, LeaseRequest request) {
    return jdbc.update(dsl, renew, binds(request)) == 1;
  }

  /** Gives the lease up; false when the owner did not hold it. */
  public boolean releaseLease(DSLContext dsl, String name, String owner) {
    StoreChecks.requireText("lease name", name);
    StoreChecks.requireText("lease owner", owner);
    return jdbc.update(dsl, release, new Binds().set(NAME, name).set(OWNER, owner)) == 1;
  }

  /** {@code leases}, checked to be some, of one owner and duration, with distinct names. */
  static List<LeaseRequest> sameOwner(List<LeaseRequest> leases) {
    List<LeaseRequest> checked = List.copyOf(Objects.requireNonNull(leases, "leases"));
    if (checked.isEmpty()) {
      throw new InvalidInputException("leases must name at least one lease");
    }
    LeaseRequest first = checked.get(0);
    Set<String> names = new HashSet<>();
    for (LeaseRequest lease : checked) {
      if (!lease.owner().equals(first.owner()) || !lease.duration().equals(first.duration())) {
        throw new InvalidInputException(
            "leases of one pass must share owner and duration: "
                + lease
                + " differs from "
                + first);
      }
      if (!names.add(lease.name())) {
        throw new InvalidInputException("lease " + lease.name() + " is named twice");
      }
    }
    return checked;
  }
}
