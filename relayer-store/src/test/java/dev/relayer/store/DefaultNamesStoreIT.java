package dev.relayer.store;

import dev.relayer.schema.SchemaOptions;

/** The store contract on {@code public.relayer_*}. */
class DefaultNamesStoreIT extends StoreContract {
  @Override
  SchemaOptions schema() {
    return SchemaOptions.defaults();
  }
}
