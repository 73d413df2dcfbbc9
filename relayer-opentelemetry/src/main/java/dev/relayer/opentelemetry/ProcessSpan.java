package dev.relayer.opentelemetry;

import dev.relayer.opentelemetry.internal.MessagingAttributes;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.RelayerStore;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Locale;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * A consumer span, current on the thread that started it until {@link #close()}: the handler's own
 * spans and logs join the producer's trace. Close it on the thread that started it (a
 * try-with-resources block), once.
 */
public final class ProcessSpan implements AutoCloseable {

  private final Span span;
  private final Context context;
  private final Scope scope;
  private final RelayerStore store;
  private final String consumer;
  private final UUID messageId;

  // The scope belongs to this object: close() closes it, and callers close this object.
  @SuppressWarnings("MustBeClosedChecker")
  ProcessSpan(Span span, Context context, RelayerStore store, String consumer, UUID messageId) {
    this.span = span;
    this.context = context;
    this.store = store;
    this.consumer = consumer;
    this.messageId = messageId;
    this.scope = context.makeCurrent();
  }

  /** The consumer span. */
  public Span span() {
    return span;
  }

  /** The context with the consumer span, for work handed to other threads. */
  public Context context() {
    return context;
  }

  /**
   * Records the message in the inbox in {@code transaction} ({@link RelayerStore#tryRecordInbox})
   * and puts the outcome on the span ({@code relayer.inbox.outcome}: {@code first} or {@code
   * duplicate}).
   */
  public InboxOutcome recordInbox(DSLContext transaction) {
    InboxOutcome outcome = store.tryRecordInbox(transaction, consumer, messageId);
    span.setAttribute(
        MessagingAttributes.RELAYER_INBOX_OUTCOME, outcome.name().toLowerCase(Locale.ROOT));
    return outcome;
  }

  /**
   * Marks the span failed: {@code failure} recorded, status error, its class as {@code error.type}.
   */
  public void fail(Throwable failure) {
    span.recordException(failure);
    span.setAttribute(MessagingAttributes.ERROR_TYPE, failure.getClass().getName());
    String message = failure.getMessage();
    span.setStatus(StatusCode.ERROR, message == null ? failure.getClass().getName() : message);
  }

  /** Ends the span and restores the context that was current before it. */
  @Override
  public void close() {
    try {
      scope.close();
    } finally {
      span.end();
    }
  }
}
