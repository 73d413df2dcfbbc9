package dev.relayer.store;

import dev.relayer.schema.SchemaNames;
import dev.relayer.store.StoreJdbc.Params;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;

/**
 * Every statement on the lease table. Times come from the database clock ({@code
 * clock_timestamp()}), never from a JVM; a duration is bound in microseconds. Every sweep and lane
 * pass takes and renews a lease, so these are SQL text over JDBC (see {@link StoreJdbc}).
 */
final class LeaseQueries {

  private final StoreJdbc jdbc;
  private final String keep;
  private final String lockRow;
  private final String exists;
  private final String insert;
  private final String takeOver;
  private final String renew;
  private final String release;
  private final String find;
  private final String live;

  LeaseQueries(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    String table = jdbc.table(SchemaNames.LEASES);
    String expiry = "clock_timestamp() + ? * interval '1 microsecond'";
    this.keep =
        "UPDATE "
            + table
            + " SET owner = ?, expires_at = "
            + expiry
            + " WHERE name = ? AND (owner = ? OR expires_at <= clock_timestamp())"
            + " AND name = (SELECT name FROM "
            + table
            + " WHERE name = ? FOR UPDATE SKIP LOCKED) RETURNING expires_at";
    this.lockRow =
        "SELECT owner, expires_at, expires_at <= clock_timestamp() FROM "
            + table
            + " WHERE name = ? FOR UPDATE SKIP LOCKED";
    this.exists = "SELECT 1 FROM " + table + " WHERE name = ?";
    this.insert =
        "INSERT INTO "
            + table
            + " (name, owner, expires_at) VALUES (?, ?, "
            + expiry
            + ") ON CONFLICT DO NOTHING RETURNING expires_at";
    this.takeOver =
        "UPDATE "
            + table
            + " SET owner = ?, expires_at = "
            + expiry
            + " WHERE name = ?"
            + " RETURNING expires_at";
    this.renew =
        "UPDATE " + table + " SET expires_at = " + expiry + " WHERE name = ? AND owner = ?";
    this.release = "DELETE FROM " + table + " WHERE name = ? AND owner = ?";
    this.find = "SELECT name, owner, expires_at FROM " + table + " WHERE name = ?";
    this.live =
        "SELECT name, owner, expires_at FROM "
            + table
            + " WHERE starts_with(name, ?) AND expires_at > clock_timestamp() ORDER BY name";
  }

  private static long micros(Duration duration) {
    return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
  }

  /**
   * Takes the lease for a pass: makes sure its row exists, locks it (skipping it when another
   * transaction holds it), and takes it over if this owner holds it or it has expired. The row lock
   * lasts until the caller's transaction ends.
   */
  LeaseOutcome tryAcquire(DSLContext dsl, LeaseRequest request) {
    // The usual case in one statement: the row exists, no other transaction holds it, and this
    // owner holds the lease or it has expired.
    Optional<OffsetDateTime> kept =
        expiry(
            dsl,
            keep,
            request.owner(),
            micros(request.duration()),
            request.name(),
            request.owner(),
            request.name());
    if (kept.isPresent()) {
      return new LeaseOutcome.Acquired(kept.get().toInstant());
    }
    Optional<Locked> current = lockRow(dsl, request.name());
    if (current.isEmpty()) {
      // Either the row does not exist yet, or another pass holds its lock. A plain read tells which
      // without waiting: it sees the last committed version of a locked row.
      if (exists(dsl, request.name())) {
        return new LeaseOutcome.Busy();
      }
      Optional<OffsetDateTime> inserted =
          expiry(dsl, insert, request.name(), request.owner(), micros(request.duration()));
      if (inserted.isPresent()) {
        return new LeaseOutcome.Acquired(inserted.get().toInstant());
      }
      current = lockRow(dsl, request.name());
      if (current.isEmpty()) {
        return new LeaseOutcome.Busy();
      }
    }
    Locked row = current.get();
    if (!request.owner().equals(row.owner()) && !row.expired()) {
      return new LeaseOutcome.HeldByOther(row.owner(), row.expiresAt().toInstant());
    }
    OffsetDateTime expiresAt =
        expiry(dsl, takeOver, request.owner(), micros(request.duration()), request.name())
            .orElseThrow();
    return new LeaseOutcome.Acquired(expiresAt.toInstant());
  }

  private record Locked(String owner, OffsetDateTime expiresAt, boolean expired) {}

  /** Locks the lease row for this transaction, or finds nothing if it is absent or locked. */
  private Optional<Locked> lockRow(DSLContext dsl, String name) {
    return jdbc.run(
        dsl,
        lockRow,
        statement -> {
          Params.of(statement).set(name);
          try (ResultSet row = statement.executeQuery()) {
            return row.next()
                ? Optional.of(
                    new Locked(
                        row.getString(1),
                        row.getObject(2, OffsetDateTime.class),
                        row.getBoolean(3)))
                : Optional.empty();
          }
        });
  }

  private boolean exists(DSLContext dsl, String name) {
    return jdbc.run(
        dsl,
        exists,
        statement -> {
          Params.of(statement).set(name);
          try (ResultSet row = statement.executeQuery()) {
            return row.next();
          }
        });
  }

  /** Runs {@code sql}, a statement returning {@code expires_at} of at most one row. */
  private Optional<OffsetDateTime> expiry(DSLContext dsl, String sql, Object... values) {
    return jdbc.run(
        dsl,
        sql,
        statement -> {
          Params.of(statement).set(values);
          try (ResultSet row = statement.executeQuery()) {
            return row.next()
                ? Optional.of(row.getObject(1, OffsetDateTime.class))
                : Optional.empty();
          }
        });
  }

  /** Restarts the lease's expiry from now; false when the owner no longer holds it. */
  boolean renew(DSLContext dsl, LeaseRequest request) {
    return jdbc.update(dsl, renew, micros(request.duration()), request.name(), request.owner())
        == 1;
  }

  /** Gives the lease up; false when the owner did not hold it. */
  boolean release(DSLContext dsl, String name, String owner) {
    return jdbc.update(dsl, release, name, owner) == 1;
  }

  Optional<LeaseState> find(DSLContext dsl, String name) {
    List<LeaseState> found = states(dsl, find, name);
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  /** Unexpired leases whose name starts with {@code prefix}, by name. */
  List<LeaseState> live(DSLContext dsl, String prefix) {
    return states(dsl, live, prefix);
  }

  private List<LeaseState> states(DSLContext dsl, String sql, String value) {
    return jdbc.run(
        dsl,
        sql,
        statement -> {
          Params.of(statement).set(value);
          List<LeaseState> states = new ArrayList<>();
          try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
              states.add(state(rows));
            }
          }
          return states;
        });
  }

  private static LeaseState state(ResultSet row) throws SQLException {
    return new LeaseState(
        row.getString(1), row.getString(2), row.getObject(3, OffsetDateTime.class).toInstant());
  }
}
