package dev.relayer.store;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a {@link RelayerStore} finds its tables and how it spreads ordered messages over lanes.
 *
 * @param schema schema and table prefix; default {@link SchemaOptions#defaults()}
 * @param laneCount number of ordered lanes, 1 to {@value #MAX_LANES}; default {@value
 *     #DEFAULT_LANES}. Every instance that shares the tables must use the same count: a key's lane
 *     is {@code floorMod(crc32(key), laneCount)}, so another count sends the key's new rows to
 *     another lane and another owner, and rows written under a larger count land in lanes nobody
 *     serves. To change it, stop every writer of ordered messages, wait until no ordered row is
 *     left (parked ones included), then restart every instance with the new count
 * @param laneNotifications whether the dispatcher of this store wakes lane owners in other
 *     instances: after a commit that wrote ordered rows through its after-commit hand-off, its
 *     notifier sends the lanes on {@link RelayerStore#laneChannel()} from a short transaction of
 *     its own, coalesced over {@code DispatchOptions.laneNotifyInterval} — never inside the
 *     application's transaction; default {@code true}. Turn it off when no instance listens (every
 *     instance polls only): other instances then find new rows by polling. The enqueue itself never
 *     notifies, whatever this says
 */
public record StoreOptions(SchemaOptions schema, int laneCount, boolean laneNotifications) {

  public static final int DEFAULT_LANES = 16;
  public static final int MAX_LANES = 4096;

  public StoreOptions {
    List<String> problems = new ArrayList<>();
    if (schema == null) {
      problems.add("schema must not be null");
    }
    if (laneCount < 1 || laneCount > MAX_LANES) {
      problems.add("laneCount must be between 1 and " + MAX_LANES + ", was " + laneCount);
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
  }

  /** The given schema and lane count, with lane notifications on. */
  public StoreOptions(SchemaOptions schema, int laneCount) {
    this(schema, laneCount, true);
  }

  /** Default schema and prefix, {@value #DEFAULT_LANES} lanes, lane notifications on. */
  public static StoreOptions defaults() {
    return new StoreOptions(SchemaOptions.defaults(), DEFAULT_LANES);
  }

  /** The given schema options, {@value #DEFAULT_LANES} lanes, lane notifications on. */
  public static StoreOptions of(SchemaOptions schema) {
    return new StoreOptions(Objects.requireNonNull(schema, "schema"), DEFAULT_LANES);
  }

  /** These options with another lane count. */
  public StoreOptions withLaneCount(int laneCount) {
    return new StoreOptions(schema, laneCount, laneNotifications);
  }

  /** These options with lane notifications on or off. */
  public StoreOptions withLaneNotifications(boolean laneNotifications) {
    return new StoreOptions(schema, laneCount, laneNotifications);
  }
}
