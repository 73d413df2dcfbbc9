package dev.relayer.opentelemetry;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.opentelemetry.internal.HeaderMaps;
import dev.relayer.opentelemetry.internal.MessagingAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Transport} that sends through another one and traces every message: one {@link
 * SpanKind#PRODUCER} span per message, named {@code send <destination>}, whose parent is the
 * context stored in the message's headers at enqueue (a new trace when there is none), started
 * before the delegate's {@code send} and ended with its result. The message goes out with the
 * producer span's context in its headers (its {@code traceparent} and {@code tracestate} replaced,
 * its baggage kept), so a consumer sees the producer span as its parent. One exception: when the
 * sampler drops the span under a stored parent that is itself unsampled, of the same trace and with
 * the same trace state, the message goes out with its headers as stored; a consumer learns the same
 * from them (the trace, unsampled), and the parent they name is as unrecorded as the dropped span.
 * Create one with {@link RelayerTracing#transport(Transport)}.
 *
 * <p>The attributes a sampler may decide on ({@code messaging.system}, {@code
 * messaging.destination.name}, {@code messaging.operation.type} and {@code .name}, {@code
 * messaging.batch.message_count}, {@code relayer.transport}) are set when the span starts; {@code
 * messaging.message.id} only on a span that records, so that an unsampled send skips it.
 *
 * <p>Everything but {@link #send} is the delegate's: name, batch limit, batch order, the checks at
 * enqueue, and {@link #close()}. A failed message ({@link SendResult#failed(String)}) ends its span
 * with status {@link StatusCode#ERROR}, its error as the description and {@code error.type =
 * failed}; a rejected one the same with {@code error.type = rejected}; an exception from the
 * delegate ends every span of the batch so, with the exception recorded and its class name as
 * {@code error.type}, and is rethrown.
 */
// close() throws what the delegate's Transport.close() throws.
@SuppressWarnings("try")
public final class TracingTransport implements Transport {

  private final Transport delegate;
  private final String messagingSystem;
  private final Tracer tracer;
  private final TextMapPropagator propagator;

  TracingTransport(
      Transport delegate, String messagingSystem, Tracer tracer, TextMapPropagator propagator) {
    this.delegate = delegate;
    this.messagingSystem = messagingSystem;
    this.tracer = tracer;
    this.propagator = propagator;
  }

  /** The transport this one sends through. */
  public Transport delegate() {
    return delegate;
  }

  /** The {@code messaging.system} of this transport's spans. */
  public String messagingSystem() {
    return messagingSystem;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public int maxBatchSize() {
    return delegate.maxBatchSize();
  }

  @Override
  public boolean preservesBatchOrder() {
    return delegate.preservesBatchOrder();
  }

  @Override
  public List<String> problems(String destination, OutgoingMessage message) {
    return delegate.problems(destination, message);
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws Exception {
    List<OutgoingMessage> messages = batch.messages();
    int count = messages.size();
    if (count == 0) {
      return delegate.send(batch);
    }
    List<Span> spans = new ArrayList<>(count);
    List<OutgoingMessage> traced = new ArrayList<>(count);
    String spanName = MessagingAttributes.SEND + " " + batch.destination();
    for (OutgoingMessage message : messages) {
      Context parent = propagator.extract(Context.root(), message.headers(), HeaderMaps.GETTER);
      SpanBuilder builder =
          tracer
              .spanBuilder(spanName)
              .setSpanKind(SpanKind.PRODUCER)
              .setParent(parent)
              .setAttribute(MessagingAttributes.SYSTEM, messagingSystem)
              .setAttribute(MessagingAttributes.DESTINATION_NAME, batch.destination())
              .setAttribute(MessagingAttributes.OPERATION_TYPE, MessagingAttributes.SEND)
              .setAttribute(MessagingAttributes.OPERATION_NAME, MessagingAttributes.SEND)
              .setAttribute(MessagingAttributes.RELAYER_TRANSPORT, delegate.name());
      if (count > 1) {
        builder.setAttribute(MessagingAttributes.BATCH_MESSAGE_COUNT, (long) count);
      }
      Span span = builder.startSpan();
      spans.add(span);
      if (span.isRecording()) {
        span.setAttribute(MessagingAttributes.MESSAGE_ID, message.messageId().toString());
      } else if (droppedUnderItsParent(span, parent)) {
        traced.add(message);
        continue;
      }
      traced.add(
          new OutgoingMessage(
              message.messageId(),
              message.messageType(),
              HeaderMaps.injected(message.headers(), propagator, parent.with(span)),
              message.body(),
              message.orderingKey(),
              message.tenantId()));
    }
    List<SendResult> results;
    try {
      results = delegate.send(new TransportBatch(batch.destination(), traced, batch.timeout()));
    } catch (Exception | Error e) {
      String type = e instanceof InvalidInputException ? "rejected" : e.getClass().getName();
      for (Span span : spans) {
        span.recordException(e);
        span.setAttribute(MessagingAttributes.ERROR_TYPE, type);
        span.setStatus(StatusCode.ERROR, SendResult.describe(e));
        span.end();
      }
      throw e;
    }
    for (int i = 0; i < count; i++) {
      Span span = spans.get(i);
      @Nullable SendResult result = i < results.size() ? results.get(i) : null;
      if (result == null) {
        span.setAttribute(MessagingAttributes.ERROR_TYPE, "no-result");
        span.setStatus(StatusCode.ERROR, "the transport reported no result for this message");
      } else if (!result.isAccepted()) {
        span.setAttribute(
            MessagingAttributes.ERROR_TYPE, result.isPermanent() ? "rejected" : "failed");
        String error = result.error();
        span.setStatus(StatusCode.ERROR, error == null ? "" : error);
      }
      span.end();
    }
    return results;
  }

  /**
   * Whether the sampler dropped {@code span} with the decision and trace state its stored parent
   * already carries: an unsampled parent of the same trace. Its headers then say to a consumer all
   * that the dropped span's would (the trace, that it is unsampled, the trace state); only the
   * parent span id differs, and neither span is recorded. So the message goes out as stored,
   * without a header map built for it.
   */
  private static boolean droppedUnderItsParent(Span span, Context parent) {
    SpanContext sent = span.getSpanContext();
    SpanContext stored = Span.fromContext(parent).getSpanContext();
    return !sent.isSampled()
        && stored.isValid()
        && !stored.isSampled()
        && sent.getTraceId().equals(stored.getTraceId())
        && sent.getTraceState().equals(stored.getTraceState());
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }

  @Override
  public String toString() {
    return "TracingTransport[" + delegate + "]";
  }
}
