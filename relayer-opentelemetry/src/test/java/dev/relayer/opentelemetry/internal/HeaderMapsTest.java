package dev.relayer.opentelemetry.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class HeaderMapsTest {

  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String SPAN_ID = "b7ad6b7169203331";

  private static Context spanContext() {
    return Context.root()
        .with(
            Span.wrap(
                SpanContext.create(
                    TRACE_ID, SPAN_ID, TraceFlags.getSampled(), TraceState.getDefault())));
  }

  @Test
  void theWrittenFieldsReplaceTheirHeadersAndEveryOtherHeaderIsKept() {
    Map<String, String> stored =
        Map.of(
            "traceparent", "00-11111111111111111111111111111111-2222222222222222-01",
            "content-type", "application/json",
            "baggage", "tenant=a");

    Map<String, String> sent =
        HeaderMaps.injected(stored, W3CTraceContextPropagator.getInstance(), spanContext());

    assertThat(sent)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "traceparent", "00-" + TRACE_ID + "-" + SPAN_ID + "-01",
                "content-type", "application/json",
                "baggage", "tenant=a"));
  }

  @Test
  void aComposedPropagatorWritesEachOfItsFieldsOnce() {
    TextMapPropagator both =
        TextMapPropagator.composite(
            W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance());
    Context context = spanContext().with(Baggage.builder().put("tenant", "b").build());

    Map<String, String> sent =
        HeaderMaps.injected(Map.of("baggage", "tenant=a", "x-own", "kept"), both, context);

    assertThat(sent)
        .containsEntry("traceparent", "00-" + TRACE_ID + "-" + SPAN_ID + "-01")
        .containsEntry("baggage", "tenant=b")
        .containsEntry("x-own", "kept")
        .hasSize(3);
  }

  @Test
  void aFieldWrittenTwiceKeepsItsLastValue() {
    Map<String, String> sent =
        HeaderMaps.injected(Map.of("a", "stored"), new WritesTwice(), Context.root());

    assertThat(sent).containsExactlyInAnyOrderEntriesOf(Map.of("a", "second"));
  }

  @Test
  void theResultIsImmutableSoThatAMessageTakesItWithoutACopy() {
    Map<String, String> sent =
        HeaderMaps.injected(
            Map.of("x-own", "kept"), W3CTraceContextPropagator.getInstance(), spanContext());

    assertThat(Map.copyOf(sent)).isSameAs(sent);
    assertThatThrownBy(() -> sent.put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
  }

  /** Writes the field {@code a} twice, first and second. */
  private static final class WritesTwice implements TextMapPropagator {
    @Override
    public Collection<String> fields() {
      return List.of("a");
    }

    @Override
    public <C> void inject(Context context, @Nullable C carrier, TextMapSetter<C> setter) {
      setter.set(carrier, "a", "first");
      setter.set(carrier, "a", "second");
    }

    @Override
    public <C> Context extract(Context context, @Nullable C carrier, TextMapGetter<C> getter) {
      return context;
    }
  }
}
