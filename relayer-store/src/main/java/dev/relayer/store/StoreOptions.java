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
 *     #DEFAULT_LANES}. Every instance that shares the tables must use the same count: changing it
 *     moves keys to other lanes, so drain the ordered backlog (or stop all writers) first.
 */
public record StoreOptions(SchemaOptions schema, int laneCount) {

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

  /** Default schema and prefix, {@value #DEFAULT_LANES} lanes. */
  public static StoreOptions defaults() {
    return new StoreOptions(SchemaOptions.defaults(), DEFAULT_LANES);
  }

  /** The given schema options, {@value #DEFAULT_LANES} lanes. */
  public static StoreOptions of(SchemaOptions schema) {
    return new StoreOptions(Objects.requireNonNull(schema, "schema"), DEFAULT_LANES);
  }

  /** These options with another lane count. */
  public StoreOptions withLaneCount(int laneCount) {
    return new StoreOptions(schema, laneCount);
  }
}
