package dev.relayer.store;

import dev.relayer.schema.SchemaOptions;

/** The dead-row statements on a schema and prefix that need every quoting rule. */
class OddNamesDeadRowStoreIT extends DeadRowStoreContract {
  @Override
  SchemaOptions schema() {
    return SchemaOptions.of("my\"Schema X", "Ü-x_");
  }
}
