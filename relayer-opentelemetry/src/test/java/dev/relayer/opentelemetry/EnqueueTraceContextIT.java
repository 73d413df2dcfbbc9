package dev.relayer.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.StoreAttachment;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The trace context written into the outbox row at enqueue, against a real PostgreSQL. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EnqueueTraceContextIT {

  OutboxDatabase db;
  final TestTracing otel = new TestTracing();

  @BeforeAll
  void createDatabase() {
    db = new OutboxDatabase();
  }

  @AfterAll
  void dropDatabase() {
    db.close();
    otel.close();
  }

  private long enqueueUnder(RelayerTracing tracing, Context context, boolean ownTraceparent) {
    StoreAttachment installed = tracing.install(db.store);
    try (Scope ignored = context.makeCurrent()) {
      var message = OutboxDatabase.message("memory");
      if (ownTraceparent) {
        message.header("traceparent", TracingTransportTest.STORED);
      }
      var built = message.build();
      return db.dsl.transactionResult(tx -> db.store.enqueue(tx.dsl(), built));
    } finally {
      installed.close();
    }
  }

  @Test
  void theCurrentSpansTraceparentAndTracestateAreWrittenIntoTheRow() {
    Span writer = otel.writerSpan();
    SpanContext withState =
        SpanContext.create(
            writer.getSpanContext().getTraceId(),
            writer.getSpanContext().getSpanId(),
            TraceFlags.getSampled(),
            TraceState.builder().put("vendor", "abc").build());
    long id =
        enqueueUnder(
            RelayerTracing.create(otel.sdk), Context.root().with(Span.wrap(withState)), false);
    writer.end();

    assertThat(db.header(id, "traceparent"))
        .isEqualTo("00-" + withState.getTraceId() + "-" + withState.getSpanId() + "-01");
    assertThat(db.header(id, "tracestate")).isEqualTo("vendor=abc");
    assertThat(db.header(id, "baggage")).as("baggage is off by default").isNull();
  }

  @Test
  void noTraceparentIsWrittenWhenNoSpanIsCurrent() {
    long id = enqueueUnder(RelayerTracing.create(otel.sdk), Context.root(), false);

    assertThat(db.header(id, "traceparent")).isNull();
    assertThat(db.header(id, "tracestate")).isNull();
  }

  @Test
  void aMessagesOwnTraceparentIsKeptAndNothingIsAddedToIt() {
    Span writer = otel.writerSpan();
    long id =
        enqueueUnder(
            RelayerTracing.builder(otel.sdk).baggage(true).build(),
            Context.root().with(writer).with(Baggage.builder().put("tenant", "acme").build()),
            true);
    writer.end();

    assertThat(db.header(id, "traceparent")).isEqualTo(TracingTransportTest.STORED);
    assertThat(db.header(id, "baggage")).isNull();
  }

  @Test
  void baggageIsWrittenOnlyWhenConfigured() {
    Span writer = otel.writerSpan();
    Context context =
        Context.root().with(writer).with(Baggage.builder().put("tenant", "acme").build());
    long with =
        enqueueUnder(RelayerTracing.builder(otel.sdk).baggage(true).build(), context, false);
    long without = enqueueUnder(RelayerTracing.create(otel.sdk), context, false);
    writer.end();

    assertThat(db.header(with, "baggage")).isEqualTo("tenant=acme");
    assertThat(db.header(with, "traceparent")).contains(writer.getSpanContext().getTraceId());
    assertThat(db.header(without, "baggage")).isNull();
    assertThat(db.header(without, "traceparent")).contains(writer.getSpanContext().getTraceId());
  }
}
