package dev.relayer.opentelemetry;

import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import org.jooq.CloseableDSLContext;
import org.jooq.impl.DSL;

/**
 * The writer, in a JVM of its own: enqueues one message for transport {@code memory} under a span
 * of its own SDK, prints {@code trace=<trace id> span=<span id>} and exits, so the message waits in
 * the outbox for a dispatcher in another process. Arguments: JDBC URL, user, password ({@code -}
 * for none).
 */
public final class EnqueueUnderSpanProcess {

  private EnqueueUnderSpanProcess() {}

  public static void main(String[] args) {
    String password = args[2].equals("-") ? null : args[2];
    try (OpenTelemetrySdk sdk =
            OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().build())
                .build();
        CloseableDSLContext dsl = DSL.using(args[0], args[1], password)) {
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());
      RelayerTracing.create(sdk).install(store);
      Span span = sdk.getTracer("writer").spanBuilder("place order").startSpan();
      try (Scope ignored = span.makeCurrent()) {
        dsl.transaction(tx -> store.enqueue(tx.dsl(), OutboxDatabase.message("memory").build()));
      } finally {
        span.end();
      }
      System.out.println(
          "trace="
              + span.getSpanContext().getTraceId()
              + " span="
              + span.getSpanContext().getSpanId());
    }
  }
}
