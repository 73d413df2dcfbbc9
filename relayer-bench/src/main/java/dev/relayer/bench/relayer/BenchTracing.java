package dev.relayer.bench.relayer;

import dev.relayer.bench.ScenarioContext;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tracer provider the observing scenarios run under: the OpenTelemetry SDK sampling a
 * parent-based trace-id ratio (every trace at 1), its spans through a {@code BatchSpanProcessor} to
 * an exporter that counts and drops them.
 */
final class BenchTracing {

  private BenchTracing() {}

  /**
   * Notes in {@code context}'s report what its observed Relayer has when {@code --observe} leaves
   * one of the two out, and the share of traces sampled when {@code --trace-sample} is below 1;
   * {@code rows} names the rows the share also applies to.
   */
  static void noteObserving(ScenarioContext context, String rows) {
    String observe = context.options().observe();
    if (!observe.equals("both")) {
      context.note(
          "observed here: "
              + (observe.equals("metrics") ? "the meters only" : "the spans only")
              + " (--observe "
              + observe
              + ")");
    }
    double sample = context.options().traceSample();
    if (sample < 1) {
      context.note(
          "traces sampled: "
              + sample
              + " of new traces (parent-based, trace-id ratio), and of "
              + rows
              + " (--trace-sample)");
    }
  }

  /**
   * A tracer provider sampling {@code sample} of new traces; its exported spans add to {@code
   * exported}.
   */
  static SdkTracerProvider provider(double sample, AtomicLong exported) {
    return SdkTracerProvider.builder()
        .setSampler(
            Sampler.parentBased(
                sample < 1 ? Sampler.traceIdRatioBased(sample) : Sampler.alwaysOn()))
        .addSpanProcessor(BatchSpanProcessor.builder(new DroppingExporter(exported)).build())
        .build();
  }

  /** Takes every span and drops it, counting them: the SDK's work without an exporter's. */
  private static final class DroppingExporter implements SpanExporter {
    private final AtomicLong exported;

    DroppingExporter(AtomicLong exported) {
      this.exported = exported;
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
      exported.addAndGet(spans.size());
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }
}
