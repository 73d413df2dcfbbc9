package dev.relayer.examples.orders;

import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.spring.boot.RelayerProperties;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.stereotype.Component;

/**
 * Creates Relayer's tables (for the {@code relayer.schema} and {@code relayer.prefix} in use) and
 * the service's own tables when the context starts, before Relayer checks them. Every statement
 * uses {@code IF NOT EXISTS}, so a restart on an existing database changes nothing.
 *
 * <p>An example's shortcut: a production service deploys its schema with its migrations, for
 * example Liquibase including Relayer's changelog (see docs/deploying-the-schema.md).
 */
@Component
class OrdersSchema implements InitializingBean {

  static final String TABLES =
      """
      CREATE TABLE IF NOT EXISTS orders (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        item text NOT NULL,
        quantity integer NOT NULL CHECK (quantity > 0),
        placed_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS shipments (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        order_id bigint NOT NULL REFERENCES orders (id),
        message_id uuid NOT NULL,
        shipped_at timestamptz NOT NULL DEFAULT now()
      );
      """;

  private final DataSource dataSource;
  private final RelayerProperties relayer;

  OrdersSchema(DataSource dataSource, RelayerProperties relayer) {
    this.dataSource = dataSource;
    this.relayer = relayer;
  }

  @Override
  public void afterPropertiesSet() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      statement.execute(PostgreSqlOutboxSchema.createScript(relayer.storeOptions().schema()));
      statement.execute(TABLES);
      connection.commit();
    }
  }
}
