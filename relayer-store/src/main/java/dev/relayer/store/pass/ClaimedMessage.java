package dev.relayer.store.pass;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * An outbox row under a claim, as the claim statement returned it.
 *
 * @param id outbox id
 * @param messageId the message's identity
 * @param transport transport name
 * @param destination transport-specific address
 * @param messageType stable type name
 * @param headers string headers
 * @param body payload
 * @param orderingKey ordering key or {@code null}
 * @param lane lane or {@code null} (unordered)
 * @param tenantId tenant or {@code null}
 * @param attempts claims so far, including this one
 * @param createdAt when the row was written (database clock)
 * @param lastError the previous failure, or {@code null}
 * @param deliverAt when the row was scheduled to become due, or {@code null} (due when written)
 */
// The body as the database returned it: a copy per access would cost on every row.
@SuppressWarnings("ArrayRecordComponent")
public record ClaimedMessage(
    long id,
    UUID messageId,
    String transport,
    String destination,
    String messageType,
    Map<String, String> headers,
    byte[] body,
    @Nullable String orderingKey,
    @Nullable Integer lane,
    @Nullable String tenantId,
    int attempts,
    Instant createdAt,
    @Nullable String lastError,
    @Nullable Instant deliverAt) {

  /**
   * The {@code last_error} of a row whose claim was committed before it was sent with others and
   * whose outcome was never recorded: its sender stopped (most likely died) during the send. Such a
   * row is <em>suspect</em>, not guilty: any row of the process's sends in flight then may have
   * caused the crash. Claims that commit before a send with others (a claim by ids, a careful
   * pass's marked rows) write it; every completion overwrites it (a failure's error) or removes the
   * row. The passes send a suspect row alone ({@link #SENT_ALONE}), and the claim that does so
   * takes over the attempt of the interrupted one instead of counting another: a crash with others
   * costs no row an attempt.
   */
  public static final String IN_FLIGHT =
      "claimed and sent with others, but no outcome was recorded: the sender stopped during the"
          + " send";

  /**
   * The {@code last_error} of a row whose claim was committed before it was sent alone — the only
   * send in flight in its process — and whose outcome was never recorded: the row's own send
   * stopped its sender. Such a crash counts as an attempt, and a message that kills every process
   * sending it ends dead (ordered: parks its key) after {@code maxAttempts} of them.
   */
  public static final String SENT_ALONE =
      "claimed and sent alone, but no outcome was recorded: the sender stopped during the send";

  /** This row as it reads after {@code extra} more attempts were charged to it. */
  public ClaimedMessage withMoreAttempts(int extra) {
    return new ClaimedMessage(
        id,
        messageId,
        transport,
        destination,
        messageType,
        headers,
        body,
        orderingKey,
        lane,
        tenantId,
        attempts + extra,
        createdAt,
        lastError,
        deliverAt);
  }

  /**
   * Whether the row was scheduled past its own {@code created_at}: not due when its transaction
   * began, so direct dispatch had nothing to send and the sweeper delivers it by design.
   */
  public boolean scheduledAfterWrite() {
    return deliverAt != null && deliverAt.isAfter(createdAt);
  }

  /**
   * The attempts of this row, just claimed, once {@link OutboxClaims#markSentAlone} marked it: one
   * fewer when it was in flight with others.
   */
  public int attemptsWhenSentAlone() {
    return IN_FLIGHT.equals(lastError) ? attempts - 1 : attempts;
  }

  /**
   * Whether this row was in flight when its sender stopped, with others ({@link #IN_FLIGHT}) or
   * alone ({@link #SENT_ALONE}): either way it is sent alone next.
   */
  public boolean wasInFlight() {
    return IN_FLIGHT.equals(lastError) || SENT_ALONE.equals(lastError);
  }
}
