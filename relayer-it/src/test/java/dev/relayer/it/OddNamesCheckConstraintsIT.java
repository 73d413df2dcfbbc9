package dev.relayer.it;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;

/**
 * The check-constraint suite on {@code "my""Schema X"."Ü-x_*"}, installed by the Liquibase
 * changelog: the constraint names PostgreSQL reports carry the odd prefix exactly.
 */
class OddNamesCheckConstraintsIT extends CheckConstraintsContract {

  @Override
  SchemaOptions options() {
    return SchemaOptions.of("my\"Schema X", "Ü-x_");
  }

  @Override
  void install(TestDatabase db, SchemaOptions options) {
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), options);
  }
}
