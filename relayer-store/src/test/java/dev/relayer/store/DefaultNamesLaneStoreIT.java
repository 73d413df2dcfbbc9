package dev.relayer.store;

import dev.relayer.schema.SchemaOptions;

/** The lane statements on {@code public.relayer_*}. */
class DefaultNamesLaneStoreIT extends LaneStoreContract {
  @Override
  SchemaOptions schema() {
    return SchemaOptions.defaults();
  }
}
