package dev.relayer.it;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;

/** The check-constraint suite on {@code public.relayer_*}, installed by the SQL script. */
class DefaultNamesCheckConstraintsIT extends CheckConstraintsContract {

  @Override
  SchemaOptions options() {
    return SchemaOptions.defaults();
  }

  @Override
  void install(TestDatabase db, SchemaOptions options) {
    RelayerSchemaInstaller.applyScript(db.dataSource(), options);
  }
}
