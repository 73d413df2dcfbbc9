package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.HorizonHolder;
import dev.relayer.store.health.TableDeadTuples;
import dev.relayer.store.health.XminHorizon;
import dev.relayer.testkit.HeldSnapshot;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Dead tuples of Relayer's tables and the xmin horizon, read from PostgreSQL's statistics views on
 * a real server. The cumulative statistics arrive asynchronously (a backend reports its changes
 * when its transaction ends, at most about once a second), so the dead-tuple test polls with a
 * bound instead of reading once. Each test gets a database of its own.
 */
class BloatReportIT {

  StoreFixture fx;

  @BeforeEach
  void setUp() {
    fx = new StoreFixture(SchemaOptions.of("bloat report", "Odd\"Prefix_"));
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  @Test
  void deadTuplesCountTheOutboxRowsDeletedAndNothingInTheUntouchedTables() {
    fx.store.enqueue(fx.dsl, StoreFixture.unordered(200));
    int deleted =
        fx.execute(
            "DELETE FROM %s WHERE id IN (SELECT id FROM %1$s ORDER BY id LIMIT 150)",
            SchemaNames.OUTBOX);
    assertThat(deleted).isEqualTo(150);

    AtomicReference<List<TableDeadTuples>> last = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              last.set(HealthReads.of(fx.store).deadTuples(fx.dsl));
              return table(last.get(), SchemaNames.OUTBOX).deadTuples() >= 150;
            });
    List<TableDeadTuples> tables = last.get();
    assertThat(tables)
        .extracting(TableDeadTuples::table)
        .containsExactly(
            SchemaNames.OUTBOX, SchemaNames.OUTBOX_DEAD, SchemaNames.INBOX, SchemaNames.LEASES);
    TableDeadTuples outbox = table(tables, SchemaNames.OUTBOX);
    assertThat(outbox.qualifiedName()).isEqualTo(fx.store.names().qualified(SchemaNames.OUTBOX));
    assertThat(outbox.liveTuples()).isEqualTo(50);
    assertThat(table(tables, SchemaNames.OUTBOX_DEAD).deadTuples()).isZero();
    assertThat(table(tables, SchemaNames.INBOX).deadTuples()).isZero();
  }

  @Test
  void horizonShowsARepeatableReadSnapshotHeldOnAnotherConnectionWithItsPidAndAge()
      throws Exception {
    try (HeldSnapshot pin =
        HeldSnapshot.take(
            fx.connect(), "bloat-report-pin", fx.store.names().qualified(SchemaNames.OUTBOX))) {
      int pid = pin.pid();
      // Every committed write after the snapshot was taken ages it by (at least) one xid.
      for (int i = 0; i < 3; i++) {
        fx.store.enqueue(fx.dsl, StoreFixture.unordered());
      }

      XminHorizon horizon = HealthReads.of(fx.store).xminHorizon(fx.dsl);

      HorizonHolder.Session held = session(horizon, pid).orElseThrow();
      assertThat(held.xminAge()).isGreaterThanOrEqualTo(3);
      assertThat(held.applicationName()).isEqualTo("bloat-report-pin");
      assertThat(held.state()).contains("idle in transaction");
      assertThat(held.xactStart()).isPresent();
      assertThat(held.transactionAge()).isPresent();
      assertThat(held.backendStart()).isBeforeOrEqualTo(held.xactStart().orElseThrow());
      assertThat(held.describe()).contains("pid=" + pid).contains("xmin_age=");
      assertThat(horizon.oldest()).isPresent();
      assertThat(horizon.oldest().orElseThrow().xminAge()).isGreaterThanOrEqualTo(held.xminAge());
    }
  }

  @Test
  void horizonShowsAReadCommittedTransactionThatWroteAndSitsIdle() throws Exception {
    try (Connection writer = fx.connect()) {
      int pid = backendPid(writer);
      writer.setAutoCommit(false);
      fx.store.enqueue(org.jooq.impl.DSL.using(writer), StoreFixture.unordered());
      // Read committed drops its snapshot after each statement; its transaction id remains.
      fx.store.enqueue(fx.dsl, StoreFixture.unordered());

      HorizonHolder.Session held =
          session(HealthReads.of(fx.store).xminHorizon(fx.dsl), pid).orElseThrow();
      assertThat(held.xminAge()).isGreaterThanOrEqualTo(1);
      assertThat(held.state()).contains("idle in transaction");
      writer.rollback();
    }
  }

  @Test
  void horizonLeavesOutASessionWhoseTransactionEnded() throws Exception {
    try (Connection pin = fx.connect()) {
      int pid = backendPid(pin);
      pin.setAutoCommit(false);
      pin.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try (Statement s = pin.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_class")) {
        rs.next();
      }
      assertThat(session(HealthReads.of(fx.store).xminHorizon(fx.dsl), pid)).isPresent();
      pin.commit();

      assertThat(session(HealthReads.of(fx.store).xminHorizon(fx.dsl), pid)).isEmpty();
    }
  }

  private static int backendPid(Connection connection) throws Exception {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static Optional<HorizonHolder.Session> session(XminHorizon horizon, int pid) {
    return horizon.holders().stream()
        .filter(h -> h instanceof HorizonHolder.Session s && s.pid() == pid)
        .map(HorizonHolder.Session.class::cast)
        .findFirst();
  }

  private static TableDeadTuples table(List<TableDeadTuples> tables, String base) {
    return tables.stream().filter(t -> t.table().equals(base)).findFirst().orElseThrow();
  }
}
