package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_LEASES;

import dev.relayer.jooq.generated.tables.RelayerLeases;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record3;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jooq.types.DayToSecond;

/**
 * Every statement on the lease table. Times come from the database clock ({@code
 * clock_timestamp()}), never from a JVM.
 */
final class LeaseQueries {

  private static final RelayerLeases L = RELAYER_LEASES;

  private LeaseQueries() {}

  static Field<OffsetDateTime> clock() {
    return DSL.function("clock_timestamp", SQLDataType.TIMESTAMPWITHTIMEZONE);
  }

  static Field<OffsetDateTime> clockPlus(Duration duration) {
    DayToSecond interval =
        new DayToSecond(0, 0, 0, (int) duration.getSeconds(), duration.getNano());
    return clock().plus(DSL.val(interval));
  }

  /**
   * Takes the lease for a pass: makes sure its row exists, locks it (skipping it when another
   * transaction holds it), and takes it over if this owner holds it or it has expired. The row lock
   * lasts until the caller's transaction ends.
   */
  static LeaseOutcome tryAcquire(DSLContext dsl, LeaseRequest request) {
    var current = lockRow(dsl, request.name());
    if (current.isEmpty()) {
      // Either the row does not exist yet, or another pass holds its lock. A plain read tells which
      // without waiting: it sees the last committed version of a locked row.
      if (dsl.fetchExists(L, L.NAME.eq(request.name()))) {
        return new LeaseOutcome.Busy();
      }
      int inserted =
          dsl.insertInto(L, L.NAME, L.OWNER, L.EXPIRES_AT)
              .values(
                  DSL.val(request.name()), DSL.val(request.owner()), clockPlus(request.duration()))
              .onConflictDoNothing()
              .returningResult(L.EXPIRES_AT)
              .fetch()
              .size();
      if (inserted == 1) {
        return new LeaseOutcome.Acquired(expiry(dsl, request.name()));
      }
      current = lockRow(dsl, request.name());
      if (current.isEmpty()) {
        return new LeaseOutcome.Busy();
      }
    }
    boolean mine = request.owner().equals(current.get().value1());
    boolean expired = Boolean.TRUE.equals(current.get().value3());
    if (!mine && !expired) {
      return new LeaseOutcome.HeldByOther(
          current.get().value1(), current.get().value2().toInstant());
    }
    OffsetDateTime expiresAt =
        dsl.update(L)
            .set(L.OWNER, request.owner())
            .set(L.EXPIRES_AT, clockPlus(request.duration()))
            .where(L.NAME.eq(request.name()))
            .returningResult(L.EXPIRES_AT)
            .fetchOne(L.EXPIRES_AT);
    return new LeaseOutcome.Acquired(expiresAt.toInstant());
  }

  /** Locks the lease row for this transaction, or finds nothing if it is absent or locked. */
  private static Optional<Record3<String, OffsetDateTime, Boolean>> lockRow(
      DSLContext dsl, String name) {
    return dsl.select(L.OWNER, L.EXPIRES_AT, DSL.field(L.EXPIRES_AT.le(clock())))
        .from(L)
        .where(L.NAME.eq(name))
        .forUpdate()
        .skipLocked()
        .fetchOptional();
  }

  private static java.time.Instant expiry(DSLContext dsl, String name) {
    return dsl.select(L.EXPIRES_AT)
        .from(L)
        .where(L.NAME.eq(name))
        .fetchOne(L.EXPIRES_AT)
        .toInstant();
  }

  /** Restarts the lease's expiry from now; false when the owner no longer holds it. */
  static boolean renew(DSLContext dsl, LeaseRequest request) {
    return dsl.update(L)
            .set(L.EXPIRES_AT, clockPlus(request.duration()))
            .where(L.NAME.eq(request.name()))
            .and(L.OWNER.eq(request.owner()))
            .execute()
        == 1;
  }

  /** Gives the lease up; false when the owner did not hold it. */
  static boolean release(DSLContext dsl, String name, String owner) {
    return dsl.deleteFrom(L).where(L.NAME.eq(name)).and(L.OWNER.eq(owner)).execute() == 1;
  }

  static Optional<LeaseState> find(DSLContext dsl, String name) {
    return dsl.selectFrom(L)
        .where(L.NAME.eq(name))
        .fetchOptional(
            r -> new LeaseState(r.getName(), r.getOwner(), r.getExpiresAt().toInstant()));
  }

  /** Unexpired leases whose name starts with {@code prefix}, by name. */
  static List<LeaseState> live(DSLContext dsl, String prefix) {
    return dsl.selectFrom(L)
        .where(L.NAME.startsWith(prefix))
        .and(L.EXPIRES_AT.gt(clock()))
        .orderBy(L.NAME)
        .fetch(r -> new LeaseState(r.getName(), r.getOwner(), r.getExpiresAt().toInstant()));
  }
}
