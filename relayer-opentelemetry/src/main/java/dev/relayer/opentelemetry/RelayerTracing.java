package dev.relayer.opentelemetry;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.Transport;
import dev.relayer.opentelemetry.internal.HeaderMaps;
import dev.relayer.opentelemetry.internal.TraceContextHeaders;
import dev.relayer.store.HeaderContributor;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreAttachment;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Tracing for Relayer with the OpenTelemetry API: the writer's context stored in each message at
 * enqueue ({@link #install}), a producer span per send whose parent is that stored context ({@link
 * #transport}), and a consumer span restored from the received headers around the inbox ({@link
 * #inbox}). See the package documentation for the whole path and the decisions behind it.
 *
 * <pre>{@code
 * RelayerTracing tracing = RelayerTracing.create(openTelemetry);
 * try (Relayer relayer = Relayer.builder(dataSource).transport(tracing.transport(rabbit)).build()) {
 *   tracing.install(relayer.store());
 *   relayer.start();
 *   ...
 * }
 * }</pre>
 *
 * <p>Thread-safe; one per application is enough.
 */
public final class RelayerTracing {

  /** The instrumentation scope name of Relayer's spans. */
  public static final String INSTRUMENTATION_NAME = "dev.relayer";

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final TraceContextHeaders contributor;
  private final boolean baggage;

  private RelayerTracing(Builder builder) {
    this.tracer = builder.openTelemetry.getTracer(INSTRUMENTATION_NAME);
    this.baggage = builder.baggage;
    TextMapPropagator trace = builder.propagator;
    this.propagator =
        baggage ? TextMapPropagator.composite(trace, W3CBaggagePropagator.getInstance()) : trace;
    this.contributor = new TraceContextHeaders(propagator, trace.fields());
  }

  /** Tracing over {@code openTelemetry} with the defaults of {@link Builder}. */
  public static RelayerTracing create(OpenTelemetry openTelemetry) {
    return builder(openTelemetry).build();
  }

  /** A builder over {@code openTelemetry} (its tracer provider makes the spans). */
  public static Builder builder(OpenTelemetry openTelemetry) {
    if (openTelemetry == null) {
      throw new InvalidInputException("openTelemetry must not be null");
    }
    return new Builder(openTelemetry);
  }

  /**
   * The contributor that writes the current context into every message enqueued while a valid span
   * is current and the message has no {@code traceparent} of its own: {@code traceparent}, {@code
   * tracestate} when the span has one, and {@code baggage} when {@linkplain Builder#baggage
   * configured} and not empty. {@link #install} registers it on a store.
   */
  public HeaderContributor headerContributor() {
    return contributor;
  }

  /**
   * Attaches {@link #headerContributor()} to {@code store}; closing the returned attachment
   * detaches it.
   */
  public StoreAttachment install(RelayerStore store) {
    return Objects.requireNonNull(store, "store").attach(contributor);
  }

  /**
   * {@code delegate}, traced: a producer span per message sent; see {@link TracingTransport}. The
   * spans' {@code messaging.system} is {@code rabbitmq}, {@code kafka} or {@code nats} for
   * Relayer's own transports and the transport's name for any other; {@link #transport(Transport,
   * String)} sets it. Closing the returned transport closes {@code delegate}.
   */
  public Transport transport(Transport delegate) {
    Objects.requireNonNull(delegate, "delegate");
    return transport(delegate, MessagingSystems.of(delegate));
  }

  /** {@link #transport(Transport)} with the spans' {@code messaging.system} given. */
  public Transport transport(Transport delegate, String messagingSystem) {
    Objects.requireNonNull(delegate, "delegate");
    if (messagingSystem == null || messagingSystem.isBlank()) {
      throw new InvalidInputException("messagingSystem must not be blank");
    }
    if (delegate instanceof TracingTransport) {
      throw new InvalidInputException(
          "transport '" + delegate.name() + "' is traced already: wrap it once");
    }
    return new TracingTransport(delegate, messagingSystem, tracer, propagator);
  }

  /**
   * The inbox of {@code consumer} on {@code store}, recording each received message under a
   * consumer span whose parent is the producer span the message carries; see {@link TracedInbox}.
   */
  public TracedInbox inbox(RelayerStore store, String consumer) {
    Objects.requireNonNull(store, "store");
    if (consumer == null || consumer.isBlank()) {
      throw new InvalidInputException("consumer must not be blank");
    }
    return new TracedInbox(this, store, consumer);
  }

  /**
   * The context that {@code headers} carry ({@code traceparent}, {@code tracestate}, and {@code
   * baggage} when configured), on top of the root context; the root context when they carry none.
   * For consumers that make spans of their own.
   */
  public Context extract(Map<String, String> headers) {
    return propagator.extract(
        Context.root(), Objects.requireNonNull(headers, "headers"), HeaderMaps.GETTER);
  }

  /** Whether baggage is written at enqueue and read back at send and receive. */
  public boolean baggage() {
    return baggage;
  }

  Tracer tracer() {
    return tracer;
  }

  /** Builds a {@link RelayerTracing}. */
  public static final class Builder {

    private final OpenTelemetry openTelemetry;
    private TextMapPropagator propagator = W3CTraceContextPropagator.getInstance();
    private boolean baggage;

    private Builder(OpenTelemetry openTelemetry) {
      this.openTelemetry = openTelemetry;
    }

    /**
     * Whether the W3C {@code baggage} header is written at enqueue beside the trace context and
     * carried to the broker; default {@code false}. Baggage is whatever the application put in its
     * current {@code Baggage}: turn it on only when that holds nothing a broker's readers must not
     * see.
     */
    public Builder baggage(boolean baggage) {
      this.baggage = baggage;
      return this;
    }

    /**
     * The propagator of the trace context; default {@link W3CTraceContextPropagator#getInstance()}
     * ({@code traceparent}, {@code tracestate}). Every process that writes, sends or consumes the
     * messages must use the same one: the stored headers are read by the dispatcher of any
     * instance, possibly after a restart. Pass {@code
     * openTelemetry.getPropagators().getTextMapPropagator()} to use the application's own; a
     * message that already has one of its {@code fields()} is left alone at enqueue.
     */
    public Builder propagator(@Nullable TextMapPropagator propagator) {
      if (propagator == null) {
        throw new InvalidInputException("propagator must not be null");
      }
      this.propagator = propagator;
      return this;
    }

    /** Builds the tracing. */
    public RelayerTracing build() {
      return new RelayerTracing(this);
    }
  }
}
