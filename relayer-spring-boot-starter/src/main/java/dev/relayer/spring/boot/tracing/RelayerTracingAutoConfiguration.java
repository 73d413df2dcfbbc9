package dev.relayer.spring.boot.tracing;

import dev.relayer.opentelemetry.RelayerTracing;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import dev.relayer.spring.boot.RelayerTransportDecorator;
import dev.relayer.store.HeaderContributor;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Traces Relayer's messages with the application's {@link OpenTelemetry}: when {@code
 * relayer-opentelemetry} is on the class path, the application has an {@code OpenTelemetry} bean
 * (its own, or Spring Boot's), and neither {@code relayer.enabled} nor {@code
 * relayer.tracing.enabled} is {@code false}. It creates a {@link RelayerTracing} (unless the
 * application has its own), whose header contributor writes the writer's trace context into every
 * message enqueued on the auto-configured Relayer's store, and a {@link RelayerTransportDecorator}
 * that traces every send of every {@code Transport} bean; see {@link RelayerTracingProperties}.
 */
@AutoConfiguration(
    before = RelayerAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
      "io.opentelemetry.instrumentation.spring.autoconfigure.OpenTelemetryAutoConfiguration"
    })
@ConditionalOnClass({RelayerTracing.class, OpenTelemetry.class})
@ConditionalOnBooleanProperty(name = "relayer.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "relayer.tracing.enabled", matchIfMissing = true)
@ConditionalOnBean(OpenTelemetry.class)
@EnableConfigurationProperties(RelayerTracingProperties.class)
public class RelayerTracingAutoConfiguration {

  /** Created by Spring. */
  public RelayerTracingAutoConfiguration() {}

  /**
   * Relayer's tracing over the application's OpenTelemetry, with W3C trace context (and baggage
   * when {@code relayer.tracing.baggage=true}).
   *
   * @param openTelemetry the application's OpenTelemetry
   * @param properties the {@code relayer.tracing.*} properties
   * @return the tracing
   */
  @Bean
  @ConditionalOnMissingBean
  public RelayerTracing relayerTracing(
      OpenTelemetry openTelemetry, RelayerTracingProperties properties) {
    return RelayerTracing.builder(openTelemetry).baggage(properties.baggage()).build();
  }

  /**
   * Writes the writer's trace context into each message at enqueue.
   *
   * @param tracing the tracing
   * @return its header contributor, registered on the Relayer's store
   */
  @Bean
  public HeaderContributor relayerTraceContextHeaders(RelayerTracing tracing) {
    return tracing.headerContributor();
  }

  /**
   * Traces every send.
   *
   * @param tracing the tracing
   * @return a decorator that wraps each transport in a {@code TracingTransport}
   */
  @Bean
  public RelayerTransportDecorator relayerTracingTransports(RelayerTracing tracing) {
    return tracing::transport;
  }
}
