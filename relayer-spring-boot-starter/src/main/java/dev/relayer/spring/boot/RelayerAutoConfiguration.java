package dev.relayer.spring.boot;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.MessageSerializer;
import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.message.MessageTypes;
import dev.relayer.spring.boot.RelayerProperties.Health;
import dev.relayer.store.HeaderContributor;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures a {@link Relayer} over the application's {@link DataSource}, with every {@link
 * Transport} bean registered, started and stopped by {@link RelayerLifecycle}, and the Spring
 * transaction hand-off {@link SpringCommitHandoff}. Every bean backs off when the application
 * defines its own of the same type. {@code relayer.enabled=false} turns it all off; see {@link
 * RelayerProperties} and the package documentation.
 */
@AutoConfiguration(
    after = {
      DataSourceAutoConfiguration.class,
      DataSourceTransactionManagerAutoConfiguration.class,
      TransactionAutoConfiguration.class,
      JooqAutoConfiguration.class
    })
@ConditionalOnProperty(
    prefix = "relayer",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(RelayerProperties.class)
public class RelayerAutoConfiguration {

  private static final Logger log = LoggerFactory.getLogger(RelayerAutoConfiguration.class);

  /** Created by Spring. */
  public RelayerAutoConfiguration() {}

  /**
   * The Relayer: the {@code relayer.*} properties, the {@code Transport} beans (shared: Spring
   * closes them, after this Relayer), each wrapped by every {@link RelayerTransportDecorator}, then
   * every {@link RelayerBuilderCustomizer}; every {@link HeaderContributor} bean is registered on
   * its store. With {@code relayer.dispatch.enabled=false} no transport is registered and it only
   * writes.
   *
   * @param dataSource the application's data source; Relayer runs its own short transactions on it,
   *     never inside the application's
   * @param properties the {@code relayer.*} properties
   * @param transports the transports
   * @param decorators wrappers applied to each transport, in order
   * @param headerContributors contributors of headers at enqueue, registered on the store
   * @param serializer the serializer of typed enqueue, when there is exactly one ({@link
   *     RelayerJacksonAutoConfiguration} provides one with {@code relayer-jackson})
   * @param messageTypes the message types and routes registered in code, when there is exactly one
   * @param customizers adjustments applied last
   * @return the Relayer, not yet started
   * @throws InvalidInputException naming each invalid {@code relayer.*} property
   */
  @Bean
  @ConditionalOnMissingBean
  public Relayer relayer(
      DataSource dataSource,
      RelayerProperties properties,
      ObjectProvider<Transport> transports,
      ObjectProvider<RelayerTransportDecorator> decorators,
      ObjectProvider<HeaderContributor> headerContributors,
      ObjectProvider<MessageSerializer> serializer,
      ObjectProvider<MessageTypes> messageTypes,
      ObjectProvider<RelayerBuilderCustomizer> customizers) {
    List<String> problems = properties.problems();
    if (!problems.isEmpty()) {
      List<String> invalid = new ArrayList<>();
      invalid.add("invalid relayer.* properties");
      invalid.addAll(problems);
      throw new InvalidInputException(invalid);
    }
    Relayer.Builder builder = Relayer.builder(dataSource).store(properties.storeOptions());
    if (properties.owner() != null) {
      builder.owner(properties.owner());
    }
    if (properties.externalTransports() != null) {
      builder.externalTransports(properties.externalTransports().toArray(String[]::new));
    }
    if (Boolean.TRUE.equals(properties.acceptAnyTransport())) {
      builder.acceptAnyTransport();
    }
    List<Transport> registered =
        properties.dispatch().enabled() ? transports.orderedStream().toList() : List.of();
    if (registered.isEmpty()) {
      log.info(
          "Relayer store={} only writes: {}",
          properties.storeOptions().schema(),
          properties.dispatch().enabled() ? "no Transport bean" : "relayer.dispatch.enabled=false");
    } else {
      List<RelayerTransportDecorator> wrappers = decorators.orderedStream().toList();
      for (Transport transport : registered) {
        Transport decorated = transport;
        for (RelayerTransportDecorator wrapper : wrappers) {
          decorated = wrapper.decorate(decorated);
        }
        builder.sharedTransport(decorated);
      }
      builder.dispatch(properties.dispatchOptions());
      if (properties.runsMaintenance()) {
        builder.maintenance(properties.maintenanceOptions());
      } else {
        builder.withoutMaintenance();
      }
      if (properties.runsLanes()) {
        builder.lanes(properties.laneOptions());
      } else {
        builder.withoutLanes();
      }
    }
    Health health = properties.health();
    builder.health(
        h -> {
          if (health.degradedAt() != null) {
            h.eligibleThresholds(health.degradedAt(), health.unhealthyAt());
          }
          if (health.ageDegradedAt() != null) {
            h.ageThresholds(health.ageDegradedAt(), health.ageUnhealthyAt());
          }
          if (health.rowLimit() != null) {
            h.rowLimit(health.rowLimit());
          }
          if (health.failingDegradedAt() != null) {
            h.failingThresholds(health.failingDegradedAt(), health.failingUnhealthyAt());
          }
          if (health.failingAgeDegradedAt() != null) {
            h.failingAgeThresholds(health.failingAgeDegradedAt(), health.failingAgeUnhealthyAt());
          }
        });
    serializer.ifUnique(builder::serializer);
    messageTypes.ifUnique(builder::messageTypes);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    Relayer relayer;
    try {
      relayer = builder.build();
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.problems().stream().map(RelayerProperties::rename).toList());
    }
    headerContributors.orderedStream().forEach(relayer.store()::attach);
    return relayer;
  }

  /**
   * Hands what a Spring-managed transaction enqueued to {@code relayer} after its outermost commit.
   *
   * @param relayer the Relayer
   * @return the hand-off, installed on the Relayer's store
   */
  @Bean
  @ConditionalOnMissingBean
  public SpringCommitHandoff springCommitHandoff(Relayer relayer) {
    return new SpringCommitHandoff(relayer);
  }

  /**
   * Starts and stops {@code relayer} with the application context.
   *
   * @param relayer the Relayer
   * @return the lifecycle, in phase {@link RelayerLifecycle#PHASE}
   */
  @Bean
  @ConditionalOnMissingBean
  public RelayerLifecycle relayerLifecycle(Relayer relayer) {
    return new RelayerLifecycle(relayer);
  }
}
