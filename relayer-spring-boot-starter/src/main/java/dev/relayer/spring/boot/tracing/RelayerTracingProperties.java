package dev.relayer.spring.boot.tracing;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relayer.tracing.*} properties.
 *
 * @param enabled whether Relayer traces its messages when the application has an {@code
 *     OpenTelemetry} bean and {@code relayer-opentelemetry} on the class path; default true
 * @param baggage whether the W3C {@code baggage} header is written at enqueue beside the trace
 *     context and carried to the broker; default false (baggage is application data that every
 *     reader of the broker sees)
 */
@ConfigurationProperties("relayer.tracing")
public record RelayerTracingProperties(
    @DefaultValue("true") boolean enabled, @DefaultValue("false") boolean baggage) {}
