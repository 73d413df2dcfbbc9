package dev.relayer.opentelemetry;

import dev.relayer.opentelemetry.internal.MessagingAttributes;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.RelayerStore;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import java.util.Objects;
import org.jooq.DSLContext;

/**
 * One consumer's inbox, traced: each received message is recorded under a {@link SpanKind#CONSUMER}
 * span named {@code process <destination>} whose parent is the producer span the message's headers
 * carry (when they carry none: the context current on the calling thread). Create one with {@link
 * RelayerTracing#inbox}.
 *
 * <pre>{@code
 * TracedInbox inbox = tracing.inbox(store, "billing");
 * // in the broker client's delivery callback:
 * InboxOutcome outcome =
 *     inbox.process(dsl, new ReceivedMessage("rabbitmq", queue, messageId, headers), tx -> {
 *       // the work, in the transaction that recorded the message; the span is current here
 *     });
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class TracedInbox {

  private final RelayerTracing tracing;
  private final RelayerStore store;
  private final String consumer;

  TracedInbox(RelayerTracing tracing, RelayerStore store, String consumer) {
    this.tracing = tracing;
    this.store = store;
    this.consumer = consumer;
  }

  /** The consumer name the inbox records under. */
  public String consumer() {
    return consumer;
  }

  /**
   * Starts the consumer span for {@code message} and makes it current on this thread; record the
   * message with {@link ProcessSpan#recordInbox} inside the consumer's transaction, and close the
   * span on this thread when the work is done. For consumers that run their transaction themselves;
   * {@link #process} does all of it.
   */
  public ProcessSpan start(ReceivedMessage message) {
    Objects.requireNonNull(message, "message");
    Context carried = tracing.extract(message.headers());
    Context parent =
        Span.fromContext(carried).getSpanContext().isValid() ? carried : Context.current();
    Span span =
        tracing
            .tracer()
            .spanBuilder(MessagingAttributes.PROCESS + " " + message.destination())
            .setSpanKind(SpanKind.CONSUMER)
            .setParent(parent)
            .setAttribute(MessagingAttributes.SYSTEM, message.messagingSystem())
            .setAttribute(MessagingAttributes.DESTINATION_NAME, message.destination())
            .setAttribute(MessagingAttributes.OPERATION_TYPE, MessagingAttributes.PROCESS)
            .setAttribute(MessagingAttributes.OPERATION_NAME, MessagingAttributes.PROCESS)
            .setAttribute(MessagingAttributes.MESSAGE_ID, message.messageId().toString())
            .setAttribute(MessagingAttributes.RELAYER_INBOX_CONSUMER, consumer)
            .startSpan();
    return new ProcessSpan(span, parent.with(span), store, consumer, message.messageId());
  }

  /**
   * Records {@code message} in the inbox and, the first time, runs {@code handler}, in one
   * transaction on {@code dsl} ({@code dsl.transactionResult}), under the consumer span: {@link
   * InboxOutcome#FIRST} when the handler ran and committed, {@link InboxOutcome#DUPLICATE} when the
   * message had been processed before and the handler did not run. A handler that throws rolls the
   * transaction back (the inbox record with it, so a redelivery processes the message again), ends
   * the span with status error, and the exception propagates as jOOQ's transaction rethrows it (a
   * checked exception wrapped in jOOQ's {@code DataAccessException}).
   */
  public InboxOutcome process(DSLContext dsl, ReceivedMessage message, InboxHandler handler) {
    Objects.requireNonNull(dsl, "dsl");
    Objects.requireNonNull(handler, "handler");
    try (ProcessSpan span = start(message)) {
      try {
        return dsl.transactionResult(
            configuration -> {
              InboxOutcome outcome = span.recordInbox(configuration.dsl());
              if (outcome == InboxOutcome.FIRST) {
                handler.handle(configuration.dsl());
              }
              return outcome;
            });
      } catch (RuntimeException | Error e) {
        span.fail(e);
        throw e;
      }
    }
  }
}
