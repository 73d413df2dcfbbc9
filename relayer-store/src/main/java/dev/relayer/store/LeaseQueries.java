package dev.relayer.store;

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

import dev.relayer.jooq.generated.tables.RelayerLeases;
import dev.relayer.jooq.generated.tables.records.RelayerLeasesRecord;
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
final class LeaseQueries {

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
  private final RenderedStatement find;
  private final RenderedStatement live;
  private final RenderedStatement all;

  LeaseQueries(StoreJdbc jdbc) {
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
    this.find = jdbc.render(select(L.NAME, L.OWNER, L.EXPIRES_AT).from(L).where(L.NAME.eq(NAME)));
    this.live =
        jdbc.render(
            select(L.NAME, L.OWNER, L.EXPIRES_AT)
                .from(L)
                .where(L.NAME.startsWith(NAME))
                .and(L.EXPIRES_AT.gt(clock()))
                .orderBy(L.NAME));
    this.all =
        jdbc.render(
            select(L.NAME, L.OWNER, L.EXPIRES_AT)
                .from(L)
                .where(L.NAME.startsWith(NAME))
                .orderBy(L.NAME));
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
   * {@link #values}.
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
   * #startPassAndTryAcquire}) for {@code requests}, which share one owner and duration.
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
  LeaseOutcome tryAcquire(DSLContext dsl, LeaseRequest request) {
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
   * The background pass settings ({@link RelayerStore#startLeasedPass}) and {@link #tryAcquire} of
   * each of {@code requests} (one owner and duration, distinct names), the usual case of all in one
   * statement; the outcomes in the order of {@code requests}.
   */
  List<LeaseOutcome> startPassAndTryAcquire(DSLContext dsl, List<LeaseRequest> requests) {
    Kept kept =
        jdbc.first(dsl, startPassAndKeep, binds(requests), LeaseQueries::kept).orElseThrow();
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
  boolean renew(DSLContext dsl, LeaseRequest request) {
    return jdbc.update(dsl, renew, binds(request)) == 1;
  }

  /** Gives the lease up; false when the owner did not hold it. */
  boolean release(DSLContext dsl, String name, String owner) {
    return jdbc.update(dsl, release, new Binds().set(NAME, name).set(OWNER, owner)) == 1;
  }

  Optional<LeaseState> find(DSLContext dsl, String name) {
    List<LeaseState> found = states(dsl, find, name);
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  /** Unexpired leases whose name starts with {@code prefix}, by name. */
  List<LeaseState> live(DSLContext dsl, String prefix) {
    return states(dsl, live, prefix);
  }

  /** Every lease row whose name starts with {@code prefix}, expired or not, by name. */
  List<LeaseState> all(DSLContext dsl, String prefix) {
    return states(dsl, all, prefix);
  }

  private List<LeaseState> states(DSLContext dsl, RenderedStatement statement, String name) {
    return jdbc.list(
        dsl,
        statement,
        new Binds().set(NAME, name),
        row ->
            new LeaseState(
                row.getString(1),
                row.getString(2),
                row.getObject(3, OffsetDateTime.class).toInstant()));
  }
}
