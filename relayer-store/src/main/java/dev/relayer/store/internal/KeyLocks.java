package dev.relayer.store.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.zip.CRC32;
import org.jooq.DSLContext;

/**
 * The advisory locks that order the writers of one ordering key: an enqueue takes them before its
 * insert, a replay of dead rows before it moves them back, so that rows of one key commit in id
 * order. A lock is ({@code namespace}, key hash) and lasts until the transaction ends.
 */
public final class KeyLocks {

  /** Most lock calls one statement carries (PostgreSQL allows 1664 select-list entries). */
  private static final int LOCKS_PER_STATEMENT = 500;

  /** {@code pg_advisory_xact_lock(namespace, hash)} per key. */
  private final StoreJdbc.Calls<Integer, Integer> calls;

  /** Key locks run through {@code jdbc}. */
  public KeyLocks(StoreJdbc jdbc) {
    this.calls = jdbc.calls("pg_advisory_xact_lock", Integer.class, Integer.class);
  }

  /** The lock calls, for a statement that takes the locks before another of its own. */
  public StoreJdbc.Calls<Integer, Integer> calls() {
    return calls;
  }

  /**
   * Takes a transaction-scoped advisory lock on ({@code namespace}, key hash) for every key of
   * {@code keys}: one lock per hash, taken in ascending order (PostgreSQL evaluates a select list
   * left to right) so that two writers never deadlock, a few hundred per round trip.
   */
  public void lock(DSLContext dsl, int namespace, Collection<String> keys) {
    List<Integer> all = hashes(keys);
    for (int from = 0; from < all.size(); from += LOCKS_PER_STATEMENT) {
      calls.run(
          dsl, namespace, all.subList(from, Math.min(all.size(), from + LOCKS_PER_STATEMENT)));
    }
  }

  /** The distinct lock hashes of {@code keys}, ascending: the order every writer locks in. */
  public static List<Integer> hashes(Collection<String> keys) {
    TreeSet<Integer> hashes = new TreeSet<>();
    for (String key : keys) {
      hashes.add(stableHash(key));
    }
    return new ArrayList<>(hashes);
  }

  /** CRC-32 of the key's UTF-8 bytes, as a signed int: the key's lock hash and lane hash. */
  public static int stableHash(String key) {
    CRC32 crc = new CRC32();
    crc.update(key.getBytes(StandardCharsets.UTF_8));
    return (int) crc.getValue();
  }
}
