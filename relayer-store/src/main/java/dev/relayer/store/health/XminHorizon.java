package dev.relayer.store.health;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What holds back the xmin horizon of this database — the oldest transaction whose snapshot or id
 * still needs row versions that updates and deletes left behind. While it is held, {@code VACUUM}
 * cannot remove dead rows of Relayer's tables (or any other), so they and their index entries pile
 * up and every claim walks past them.
 *
 * <p>Three kinds of holder are read, each from the view that shows it:
 *
 * <ul>
 *   <li>{@linkplain HorizonHolder.Session sessions} of this database ({@code pg_stat_activity}):
 *       {@code backend_xmin} (an open snapshot: a {@code REPEATABLE READ} transaction, a long
 *       query, {@code pg_dump}) and {@code backend_xid} (a transaction that wrote, for example one
 *       left idle in transaction). Only sessions the role may see: a superuser, a member of {@code
 *       pg_read_all_stats}, or sessions of roles whose privileges it has; others are counted in
 *       {@link #hiddenSessions()};
 *   <li>{@linkplain HorizonHolder.ReplicationSlot replication slots} ({@code pg_replication_slots})
 *       with an {@code xmin}, which a standby's {@code hot_standby_feedback} sets; a logical slot's
 *       {@code catalog_xmin} holds only the system catalogs and is not reported;
 *   <li>{@linkplain HorizonHolder.PreparedTransaction prepared transactions} of this database
 *       ({@code pg_prepared_xacts}), which hold the horizon until committed or rolled back, even
 *       across restarts.
 * </ul>
 *
 * Ages are in transaction ids ({@code age(xid)}): how many transactions were started since the
 * holder's snapshot or id; an age of 0 means no transaction has started since.
 *
 * @param observedAt the database's clock when the views were read
 * @param holders the holders, oldest (largest age) first, at most {@link #MAX_HOLDERS}; the session
 *     reading them is never among them
 * @param hiddenSessions sessions of this database whose transaction state the role may not see
 */
public record XminHorizon(Instant observedAt, List<HorizonHolder> holders, long hiddenSessions) {

  /** Most holders a report lists. */
  public static final int MAX_HOLDERS = 10;

  public XminHorizon {
    holders = List.copyOf(holders);
  }

  /** The holder with the largest age, if anything holds the horizon. */
  public Optional<HorizonHolder> oldest() {
    return holders.stream().findFirst();
  }
}
