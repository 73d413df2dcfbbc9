/**
 * Tracing under Spring Boot: {@link
 * dev.relayer.spring.boot.tracing.RelayerTracingAutoConfiguration} wires {@code
 * relayer-opentelemetry} to the application's {@code OpenTelemetry} bean ({@code
 * relayer.tracing.*}, {@link dev.relayer.spring.boot.tracing.RelayerTracingProperties}). Both
 * {@code relayer-opentelemetry} and the OpenTelemetry API are optional dependencies of the starter:
 * an application without them gets no tracing and needs neither.
 *
 * <p>The consumer side is the application's: inject the {@code RelayerTracing} bean and use {@code
 * tracing.inbox(relayer.store(), consumer)} in the broker listener.
 */
@NullMarked
package dev.relayer.spring.boot.tracing;

import org.jspecify.annotations.NullMarked;
