package dev.relayer.store.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Something that holds the xmin horizon back; see {@link XminHorizon}. */
public sealed interface HorizonHolder {

  /** How many transaction ids were assigned since the snapshot or id it holds ({@code age()}). */
  long xminAge();

  /** One line for people: what it is and its age. */
  String describe();

  /**
   * A session of this database with an open snapshot or a transaction id ({@code
   * pg_stat_activity}).
   *
   * @param pid the backend's process id ({@code pg_terminate_backend(pid)} ends it)
   * @param applicationName {@code application_name}; may be empty
   * @param user the role it connected as, if known
   * @param backendType {@code backend_type}, such as {@code client backend} or {@code autovacuum
   *     worker}
   * @param state {@code state}, such as {@code idle in transaction} or {@code active}; empty when
   *     the server reports none
   * @param backendStart when the session connected
   * @param xactStart when its current transaction started; empty when it has none
   * @param transactionAge how long its current transaction has been open, by the database clock
   * @param xminAge the larger of {@code age(backend_xmin)} and {@code age(backend_xid)}
   */
  record Session(
      int pid,
      String applicationName,
      Optional<String> user,
      String backendType,
      Optional<String> state,
      Instant backendStart,
      Optional<Instant> xactStart,
      Optional<Duration> transactionAge,
      long xminAge)
      implements HorizonHolder {

    @Override
    public String describe() {
      return "session pid="
          + pid
          + " application_name='"
          + applicationName
          + "'"
          + user.map(u -> " user=" + u).orElse("")
          + " backend_type='"
          + backendType
          + "'"
          + state.map(s -> " state='" + s + "'").orElse("")
          + " backend_start="
          + backendStart
          + xactStart.map(x -> " xact_start=" + x).orElse("")
          + transactionAge.map(a -> " open for " + a).orElse("")
          + " xmin_age="
          + xminAge;
    }
  }

  /**
   * A replication slot with an {@code xmin} ({@code pg_replication_slots}).
   *
   * @param slotName the slot's name ({@code pg_drop_replication_slot(name)} drops it)
   * @param slotType {@code physical} or {@code logical}
   * @param active whether a receiver is connected to it
   * @param xminAge {@code age(xmin)}
   */
  record ReplicationSlot(String slotName, String slotType, boolean active, long xminAge)
      implements HorizonHolder {

    @Override
    public String describe() {
      return "replication slot '"
          + slotName
          + "' ("
          + slotType
          + (active ? ", active" : ", inactive")
          + ") xmin_age="
          + xminAge;
    }
  }

  /**
   * A prepared transaction of this database ({@code pg_prepared_xacts}).
   *
   * @param gid its global id ({@code COMMIT PREPARED 'gid'} or {@code ROLLBACK PREPARED 'gid'} ends
   *     it)
   * @param owner the role that prepared it
   * @param prepared when it was prepared
   * @param xminAge {@code age(transaction)}
   */
  record PreparedTransaction(String gid, String owner, Instant prepared, long xminAge)
      implements HorizonHolder {

    @Override
    public String describe() {
      return "prepared transaction '"
          + gid
          + "' owner="
          + owner
          + " prepared="
          + prepared
          + " xmin_age="
          + xminAge;
    }
  }
}
