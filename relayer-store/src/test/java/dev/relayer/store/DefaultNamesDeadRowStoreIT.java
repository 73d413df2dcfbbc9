package dev.relayer.store;

import dev.relayer.schema.SchemaOptions;

/** The dead-row statements on {@code public.relayer_*}. */
class DefaultNamesDeadRowStoreIT extends DeadRowStoreContract {
  @Override
  SchemaOptions schema() {
    return SchemaOptions.defaults();
  }
}
