package dev.relayer.opentelemetry.internal;

import dev.relayer.store.HeaderContributor;
import dev.relayer.store.NewMessage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the current context into a message at enqueue: nothing when no valid span is current or
 * when the message already has one of the trace propagator's fields (its own {@code traceparent}
 * wins, and a {@code tracestate} or {@code baggage} of another trace is never mixed into it).
 */
public final class TraceContextHeaders implements HeaderContributor {

  private final TextMapPropagator propagator;
  private final List<String> traceFields;

  /**
   * @param propagator what to write (trace context, and baggage when configured)
   * @param traceFields the trace propagator's fields: a message with any of them is left alone
   */
  public TraceContextHeaders(TextMapPropagator propagator, Collection<String> traceFields) {
    this.propagator = propagator;
    this.traceFields = List.copyOf(traceFields);
  }

  @Override
  public Map<String, String> headers(NewMessage message) {
    Context current = Context.current();
    if (!Span.fromContext(current).getSpanContext().isValid()) {
      return Map.of();
    }
    Map<String, String> headers = message.headers();
    for (String field : traceFields) {
      if (headers.containsKey(field)) {
        return Map.of();
      }
    }
    Map<String, String> added = new LinkedHashMap<>(4);
    propagator.inject(current, added, HeaderMaps.SETTER);
    return added;
  }
}
