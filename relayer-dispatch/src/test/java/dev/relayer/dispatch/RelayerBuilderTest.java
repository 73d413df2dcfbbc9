package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.StoreOptions;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Bad input to {@link Relayer} and its builder, and the lifecycle rules that need no database: a
 * data source that nothing ever connects to shows that none of this runs SQL.
 */
class RelayerBuilderTest {

  /** Points at a port nothing listens on; building a Relayer never connects. */
  private static PGSimpleDataSource nowhere() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl("jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=1");
    return dataSource;
  }

  @Test
  void aBadSchemaAndPrefixAreNamedTogether() {
    assertThatThrownBy(() -> Relayer.builder(nowhere()).schema("pg_x").prefix("a\0b").build())
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e ->
                assertThat(((InvalidInputException) e).problems())
                    .anySatisfy(p -> assertThat(p).contains("schema").contains("pg_"))
                    .anySatisfy(p -> assertThat(p).contains("table prefix").contains("NUL")));
  }

  @Test
  void everyBadSettingOfTheBuilderAndItsPartsIsNamedAtOnceAndOwnedTransportsAreClosed() {
    CloseCountingTransport owned = new CloseCountingTransport(InMemoryTransport.named("memory"));
    CloseCountingTransport shared = new CloseCountingTransport(InMemoryTransport.named("memory"));
    assertThatThrownBy(
            () ->
                Relayer.builder(nowhere())
                    .owner(" ")
                    .transport(owned)
                    .sharedTransport(shared)
                    .maintenance(MaintenanceOptions.defaults())
                    .withoutMaintenance()
                    .lanes(LaneOptions.defaults())
                    .withoutLanes()
                    .health(h -> h.eligibleThresholds(10, 5))
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e ->
                assertThat(((InvalidInputException) e).problems())
                    .anySatisfy(p -> assertThat(p).isEqualTo("owner must not be blank"))
                    .anySatisfy(p -> assertThat(p).contains("withoutMaintenance()"))
                    .anySatisfy(p -> assertThat(p).contains("withoutLanes()"))
                    .anySatisfy(p -> assertThat(p).contains("'memory' is registered twice"))
                    .anySatisfy(p -> assertThat(p).contains("unhealthyAt")));
    assertThat(owned.closes()).as("a failed build closes the transports it owns").isEqualTo(1);
    assertThat(shared.closes()).as("and not the shared ones").isZero();
  }

  @Test
  void maintenanceClaimsShorterThanTheDispatchersSendsAreRejectedNamingBoth() {
    assertThatThrownBy(
            () ->
                Relayer.builder(nowhere())
                    .transport(InMemoryTransport.named("memory"))
                    .dispatch(DispatchOptions.builder().sendTimeout(Duration.ofSeconds(20)).build())
                    .maintenance(
                        MaintenanceOptions.builder().claimDuration(Duration.ofSeconds(5)).build())
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("maintenance claimDuration")
        .hasMessageContaining("sendTimeout");
  }

  @Test
  void optionsForPartsThatCannotRunWithoutATransportAreRejected() {
    assertThatThrownBy(
            () ->
                Relayer.builder(nowhere())
                    .dispatch(DispatchOptions.defaults())
                    .lanes(LaneOptions.defaults())
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("dispatch, lane options were given but no transport was registered");
  }

  @Test
  void aSchemaThatDisagreesWithTheStoreOptionsIsRejected() {
    assertThatThrownBy(
            () ->
                Relayer.builder(nowhere())
                    .store(StoreOptions.of(SchemaOptions.of("billing", "relayer_")))
                    .schema("orders")
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("differ from those of the store options");

    Relayer agreeing =
        Relayer.builder(nowhere())
            .store(StoreOptions.of(SchemaOptions.of("billing", "relayer_")).withLaneCount(4))
            .schema("billing")
            .build();
    assertThat(agreeing.store().options().laneCount()).isEqualTo(4);
    assertThat(agreeing.store().displayName()).isEqualTo("billing.relayer_");
  }

  @Test
  void aContextOfAnotherDialectIsRejected() {
    assertThatThrownBy(() -> Relayer.builder(DSL.using(SQLDialect.MYSQL)).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("dsl dialect must be of the POSTGRES family, was MySQL");
  }

  @Test
  void nullSettingsAreRejectedNamingTheSetting() {
    Relayer.Builder builder = Relayer.builder(nowhere());
    assertThatThrownBy(() -> builder.transport(null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("transport must not be null");
    assertThatThrownBy(() -> builder.maintenance(null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("maintenance options must not be null");
    assertThatThrownBy(() -> builder.health(null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("health settings must not be null");
  }

  @Test
  void nullDataSourcesAndContextsAreRejected() {
    assertThatThrownBy(() -> Relayer.builder((javax.sql.DataSource) null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("dataSource must not be null");
    assertThatThrownBy(() -> Relayer.builder((org.jooq.DSLContext) null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("dsl must not be null");
  }

  @Test
  void aBuilderBuildsOneRelayerSoThatOwnedTransportsHaveOneOwner() {
    Relayer.Builder builder =
        Relayer.builder(nowhere()).transport(InMemoryTransport.named("memory"));
    try (Relayer first = builder.build()) {
      assertThatThrownBy(builder::build)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("was built already");
    }
  }

  @Test
  void afterCommitNamesNullAndNonPositiveIds() {
    try (Relayer relayer =
        Relayer.builder(nowhere()).transport(InMemoryTransport.named("memory")).build()) {
      assertThatThrownBy(() -> relayer.afterCommit(null))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("ids must not be null");
      assertThatThrownBy(() -> relayer.afterCommit(Arrays.asList(5L, null, 0L, -3L)))
          .isInstanceOf(InvalidInputException.class)
          .satisfies(
              e ->
                  assertThat(((InvalidInputException) e).problems())
                      .containsExactly(
                          "ids[1] must not be null",
                          "ids[2] must be a positive outbox id, was 0",
                          "ids[3] must be a positive outbox id, was -3"));
      relayer.afterCommit(List.of(1L, 2L)); // before start: queued, never rejected
    }
  }

  @Test
  void startAfterCloseThrowsIllegalStateNamingTheStore() {
    Relayer relayer =
        Relayer.builder(nowhere()).transport(InMemoryTransport.named("memory")).build();
    relayer.close();
    relayer.close();
    assertThatThrownBy(relayer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Relayer store=public.relayer_ is closed; build a new one to start again");
  }

  @Test
  void aTransportThatFailsToCloseDoesNotKeepTheOthersOpen() {
    IllegalStateException refusal = new IllegalStateException("broker connection stuck");
    CloseCountingTransport failing =
        new CloseCountingTransport(
            new Transport() {
              @Override
              public String name() {
                return "failing";
              }

              @Override
              public int maxBatchSize() {
                return 10;
              }

              @Override
              public List<SendResult> send(TransportBatch batch) {
                return batch.messages().stream().map(m -> SendResult.accepted()).toList();
              }

              @Override
              public void close() {
                throw refusal;
              }
            });
    CloseCountingTransport next = new CloseCountingTransport(InMemoryTransport.named("next"));
    Relayer relayer = Relayer.builder(nowhere()).transport(failing).transport(next).build();

    assertThatThrownBy(relayer::close).isSameAs(refusal);
    assertThat(failing.closes()).isEqualTo(1);
    assertThat(next.closes()).as("closed after the one that failed").isEqualTo(1);
    relayer.close(); // closed already: nothing is closed twice
    assertThat(next.closes()).isEqualTo(1);
  }
}
