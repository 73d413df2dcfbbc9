package dev.relayer.store;

import dev.relayer.schema.SchemaOptions;

/** The lane statements on a schema and prefix that need every quoting rule. */
class OddNamesLaneStoreIT extends LaneStoreContract {
  @Override
  SchemaOptions schema() {
    return SchemaOptions.of("my\"Schema X", "Ü-x_");
  }
}
