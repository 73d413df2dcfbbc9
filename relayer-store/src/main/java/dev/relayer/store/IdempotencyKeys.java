package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_IDEMPOTENCY_KEYS;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;

import dev.relayer.jooq.generated.tables.RelayerIdempotencyKeys;
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreJdbc;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.impl.DSL;

/**
 * The statements of the idempotency keys table that an enqueue runs, rendered once per store and
 * row count (see {@link StoreJdbc}); the keys' retention deletes are {@code RetentionDelete}'s (in
 * the pass package).
 *
 * <pre>{@code
 * insert into keys (idempotency_key, message_id) values (:k0, :m0), …
 *   on conflict do nothing returning idempotency_key, message_id, created_at   -- claim
 * select idempotency_key, message_id, created_at from keys
 *   where idempotency_key = any(:keys)                                         -- the firsts
 * }</pre>
 *
 * The claim is the inbox's insert: a key another transaction inserted and has not committed makes
 * the claim wait for that transaction on the primary key; when it commits the key is skipped (a
 * duplicate), when it rolls back the key is inserted (this enqueue is the first). The claim inserts
 * its keys in sorted order, so two enqueues that share several keys wait for each other in one
 * order and never deadlock on them. The firsts are read by a second statement, which (in {@code
 * READ COMMITTED}) sees the rows the claim waited for.
 */
final class IdempotencyKeys {

  private static final RelayerIdempotencyKeys K = RELAYER_IDEMPOTENCY_KEYS;

  /** Most keys one claim statement carries; more run several, in order. */
  static final int ROWS_PER_INSERT = 100;

  private static final List<Param<String>> KEYS = params("k", K.IDEMPOTENCY_KEY);

  private static final List<Param<UUID>> MESSAGE_IDS = params("m", K.MESSAGE_ID);

  private static final Param<String[]> FIND = param("keys", String[].class);

  /** A key's row: which message first carried it, and when its transaction wrote it. */
  record KeyRow(String key, UUID messageId, Instant createdAt) {}

  private final StoreJdbc jdbc;

  /** Claims by number of rows, rendered on first use. */
  private final Map<Integer, RenderedStatement> claims = new ConcurrentHashMap<>();

  private final RenderedStatement firsts;

  IdempotencyKeys(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    this.firsts =
        jdbc.render(
            select(K.IDEMPOTENCY_KEY, K.MESSAGE_ID, K.CREATED_AT)
                .from(K)
                .where(K.IDEMPOTENCY_KEY.eq(any(FIND))));
  }

  private static <T> List<Param<T>> params(String prefix, Field<T> column) {
    List<Param<T>> params = new ArrayList<>(ROWS_PER_INSERT);
    for (int row = 0; row < ROWS_PER_INSERT; row++) {
      params.add(param(prefix + row, column.getDataType()));
    }
    return List.copyOf(params);
  }

  private RenderedStatement renderClaim(int rows) {
    var insert = DSL.insertInto(K, K.IDEMPOTENCY_KEY, K.MESSAGE_ID);
    for (int row = 0; row < rows; row++) {
      insert = insert.values(KEYS.get(row), MESSAGE_IDS.get(row));
    }
    return jdbc.render(
        insert
            .onConflictDoNothing()
            .returningResult(K.IDEMPOTENCY_KEY, K.MESSAGE_ID, K.CREATED_AT));
  }

  /**
   * Inserts a row for every key of {@code keys} (key → the message id that carries it; distinct
   * keys, iterated in ascending order) that no committed transaction holds; returns the rows
   * inserted, by key. Waits for transactions that inserted one of the keys and are still open.
   */
  Map<String, KeyRow> claim(DSLContext dsl, Map<String, UUID> keys) {
    List<Map.Entry<String, UUID>> entries = new ArrayList<>(keys.entrySet());
    Map<String, KeyRow> claimed = new LinkedHashMap<>();
    for (int from = 0; from < entries.size(); from += ROWS_PER_INSERT) {
      List<Map.Entry<String, UUID>> some =
          entries.subList(from, Math.min(entries.size(), from + ROWS_PER_INSERT));
      Binds binds = new Binds();
      for (int row = 0; row < some.size(); row++) {
        binds.set(KEYS.get(row), some.get(row).getKey());
        binds.set(MESSAGE_IDS.get(row), some.get(row).getValue());
      }
      for (KeyRow row :
          jdbc.list(
              dsl,
              claims.computeIfAbsent(some.size(), this::renderClaim),
              binds,
              IdempotencyKeys::keyRow)) {
        claimed.put(row.key(), row);
      }
    }
    return claimed;
  }

  /** The rows of those of {@code keys} that exist, by key. */
  Map<String, KeyRow> find(DSLContext dsl, List<String> keys) {
    Map<String, KeyRow> found = new LinkedHashMap<>();
    for (KeyRow row :
        jdbc.list(
            dsl,
            firsts,
            new Binds().set(FIND, keys.toArray(String[]::new)),
            IdempotencyKeys::keyRow)) {
      found.put(row.key(), row);
    }
    return found;
  }

  private static KeyRow keyRow(ResultSet row) throws SQLException {
    return new KeyRow(
        Objects.requireNonNull(row.getString(1)),
        Objects.requireNonNull(row.getObject(2, UUID.class)),
        Objects.requireNonNull(row.getObject(3, OffsetDateTime.class)).toInstant());
  }
}
