package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.internal.OutboxSql.utc;
import static org.jooq.impl.DSL.param;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.HeadersJson;
import dev.relayer.store.internal.KeyLocks;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreJdbc;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Param;
import org.jooq.impl.DSL;

/**
 * The unordered outbox statements every message goes through — the enqueue insert and key locks,
 * the claim by ids, the sweeper's page claim and lock, and the completing deletes — rendered once
 * per store (see {@link StoreJdbc}). The eligibility test compares {@code status} with the literal
 * {@code 'pending'}, so that a plan the server reuses can still use the partial pending index.
 */
final class OutboxInserts {
  private static final RelayerOutbox O = RELAYER_OUTBOX;

  /** Most rows one insert statement carries; a larger enqueue runs several, in order. */
  static final int ROWS_PER_INSERT = 100;

  private final StoreJdbc jdbc;

  /** Inserts by {@link InsertShape}, rendered on first use. */
  private final Map<InsertShape, RenderedStatement> inserts = new ConcurrentHashMap<>();

  /** Key locks followed by an insert, by shape and number of locks, rendered on first use. */
  private final Map<LockedInsert, RenderedStatement> lockedInserts = new ConcurrentHashMap<>();

  private final KeyLocks keyLocks;

  OutboxInserts(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    this.keyLocks = new KeyLocks(jdbc);
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
    keyLocks.lock(dsl, namespace, keys);
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
    List<Integer> hashes = KeyLocks.hashes(keys);
    InsertShape shape = InsertShape.of(messages);
    Binds binds = insertBinds(shape, messages, laneCount);
    keyLocks.calls().put(binds, namespace, hashes);
    RenderedStatement statement =
        lockedInserts.computeIfAbsent(
            new LockedInsert(shape, hashes.size()),
            k ->
                keyLocks
                    .calls()
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
}
