package dev.relayer.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

/** The OpenTelemetry SDK with an in-memory exporter: every ended span, for assertions. */
final class TestTracing implements AutoCloseable {

  static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<Long> BATCH_COUNT =
      AttributeKey.longKey("messaging.batch.message_count");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> INBOX_OUTCOME = AttributeKey.stringKey("relayer.inbox.outcome");

  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final SdkTracerProvider tracerProvider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();

  /** A tracer of the application (not Relayer's), for the writer's spans. */
  Tracer application() {
    return sdk.getTracer("application");
  }

  /** Starts an application span; end it yourself. */
  Span writerSpan() {
    return application().spanBuilder("place order").startSpan();
  }

  List<SpanData> spans() {
    return exporter.getFinishedSpanItems();
  }

  List<SpanData> spansNamed(String name) {
    return spans().stream().filter(s -> s.getName().equals(name)).toList();
  }

  @Override
  public void close() {
    sdk.close();
  }
}
