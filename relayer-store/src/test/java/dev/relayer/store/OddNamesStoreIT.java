package dev.relayer.store;

import dev.relayer.schema.SchemaOptions;

/** The store contract on a schema and prefix that need every quoting rule. */
class OddNamesStoreIT extends StoreContract {
  @Override
  SchemaOptions schema() {
    return SchemaOptions.of("my\"Schema X", "Ü-x_");
  }
}
