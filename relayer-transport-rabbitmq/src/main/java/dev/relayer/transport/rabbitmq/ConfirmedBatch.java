package dev.relayer.transport.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One batch published on its own channel in confirm mode, and the bookkeeping that turns publisher
 * confirms, returns and a channel shutdown into one result per message.
 *
 * <p>A message AMQP cannot carry ({@link AmqpFields}) is rejected for good and not published; the
 * rest of the batch goes on (an ordered batch stops there). Publish sequence numbers of a fresh
 * confirm channel start at 1 and count published messages only, so the {@code p}-th published
 * message has sequence number {@code first + p}; {@code indexBySequence} maps it back to its place
 * in the batch. RabbitMQ sends {@code basic.return} for an unroutable mandatory message before its
 * {@code basic.ack}, on the same connection thread, so a return is always recorded before the ack
 * that settles the message.
 *
 * <p>Permanent: a return (nothing is bound for the message). Unavailable (retried without counting
 * an attempt, see {@link SendResult#unavailable(String)}): every message that was not published —
 * held back after an earlier failure of an ordered batch, after a publish that failed, or when the
 * batch timeout passed while publishing — and a channel closed with 404 (the exchange does not
 * exist: an operator can declare it again, and until then no message is to blame). Everything else
 * — a nack, a channel or connection closed before the confirm, no confirm in time — is a failure to
 * retry: the message may have reached the broker.
 */
final class ConfirmedBatch implements ConfirmListener, ReturnListener, ShutdownListener {

  private static final int NOT_FOUND = 404;

  private final boolean ordered;
  private final List<OutgoingMessage> messages;
  private final RabbitMqDestination destination;
  private final String[] errors;
  private final boolean[] permanent;
  private final boolean[] unreached;
  private final boolean[] late;
  private final boolean[] settled;
  private final String[] returned;
  private final int[] indexBySequence;
  private final Map<String, List<Integer>> indexesById = new HashMap<>();
  private long firstSequence = -1;
  private int published;
  private int unsettled;
  private boolean timedOut;

  /** Set when the broker said the destination itself takes nothing: every message fails alike. */
  private @Nullable String destinationRejected;

  /** Whether that was a missing exchange (unavailable), not a return (rejected for good). */
  private boolean destinationMissing;

  /**
   * @param ordered publish one message at a time, waiting for its confirm, and stop at the first
   *     failure
   */
  ConfirmedBatch(List<OutgoingMessage> messages, RabbitMqDestination destination, boolean ordered) {
    this.ordered = ordered;
    this.messages = messages;
    this.destination = destination;
    this.errors = new String[messages.size()];
    this.permanent = new boolean[messages.size()];
    this.unreached = new boolean[messages.size()];
    this.late = new boolean[messages.size()];
    this.settled = new boolean[messages.size()];
    this.returned = new String[messages.size()];
    this.indexBySequence = new int[messages.size()];
    for (int i = 0; i < messages.size(); i++) {
      indexesById
          .computeIfAbsent(messages.get(i).messageId().toString(), id -> new ArrayList<>(1))
          .add(i);
    }
  }

  /**
   * Publishes every message in order with {@code mandatory} set, then waits until each one is
   * settled or the deadline passes, and returns one result per message. Ordered: waits for each
   * message's confirm before publishing the next, and publishes nothing after a failure.
   */
  List<SendResult> publishAndAwait(Channel channel, long deadlineNanos, Duration timeout)
      throws IOException, InterruptedException {
    channel.addConfirmListener(this);
    channel.addReturnListener(this);
    channel.addShutdownListener(this);
    channel.confirmSelect();
    synchronized (this) {
      firstSequence = channel.getNextPublishSeqNo();
    }
    for (int i = 0; i < messages.size(); i++) {
      if (System.nanoTime() - deadlineNanos >= 0) {
        synchronized (this) {
          timedOut = true;
        }
        failUnpublished(
            i, "not sent: the batch timeout of " + timeout + " passed while publishing");
        break;
      }
      OutgoingMessage message = messages.get(i);
      List<String> problems = AmqpFields.problems(message);
      if (!problems.isEmpty()) {
        reject(i, "not sent: " + String.join("; ", problems));
        if (ordered) {
          failUnpublished(i + 1, "not sent: an earlier message of this ordered batch failed");
          break;
        }
        continue;
      }
      synchronized (this) {
        // Count the message before publishing it: its confirm may arrive before basicPublish
        // returns.
        indexBySequence[published] = i;
        published++;
        unsettled++;
      }
      try {
        channel.basicPublish(
            destination.exchange(),
            destination.routingKey(),
            true,
            properties(message),
            message.body());
      } catch (IOException | RuntimeException e) {
        // Not published (also on a channel the broker closed for a missing exchange).
        failPublished(i, "not sent: " + SendResult.describe(e));
        failUnpublished(i + 1, "not sent: an earlier message of the batch could not be published");
        break;
      }
      if (ordered && !awaitSettled(deadlineNanos, timeout)) {
        synchronized (this) {
          if (destinationRejected != null) {
            // The destination's verdict stands for the rest: a return is for good, a missing
            // exchange is unavailable.
            failUnpublished(i + 1, "not sent: " + destinationRejected, !destinationMissing);
          } else {
            failUnpublished(i + 1, "not sent: an earlier message of this ordered batch failed");
          }
        }
        break;
      }
    }
    synchronized (this) {
      awaitSettled(deadlineNanos, timeout);
      List<SendResult> results = new ArrayList<>(errors.length);
      for (int i = 0; i < errors.length; i++) {
        String error = errors[i];
        results.add(
            error == null
                ? SendResult.accepted()
                : permanent[i]
                    ? SendResult.rejected(error)
                    : unreached[i]
                        ? SendResult.unavailable(error)
                        : late[i] ? SendResult.timedOut(error) : SendResult.failed(error));
      }
      return results;
    }
  }

  /**
   * Waits until every published message is settled, or settles the rest as timed out at the
   * deadline. Returns whether every published message was accepted.
   */
  private synchronized boolean awaitSettled(long deadlineNanos, Duration timeout)
      throws InterruptedException {
    while (unsettled > 0) {
      long remaining = deadlineNanos - System.nanoTime();
      if (remaining <= 0) {
        timedOut = true;
        for (int p = 0; p < published; p++) {
          late[indexBySequence[p]] = !settled[indexBySequence[p]];
        }
        settleRemaining(
            "no publisher confirm from RabbitMQ within the batch timeout of " + timeout, false);
        break;
      }
      wait(Math.max(1, Duration.ofNanos(remaining).toMillis()));
    }
    for (int p = 0; p < published; p++) {
      if (errors[indexBySequence[p]] != null) {
        return false;
      }
    }
    return true;
  }

  /** Whether the broker settled every published message and the batch did not time out. */
  synchronized boolean completed() {
    return unsettled == 0 && !timedOut;
  }

  private static AMQP.BasicProperties properties(OutgoingMessage message) {
    Map<String, Object> headers = new HashMap<>(message.headers());
    headers.remove(RabbitMqTransport.TENANT_ID_HEADER);
    String tenantId = message.tenantId();
    if (tenantId != null) {
      headers.put(RabbitMqTransport.TENANT_ID_HEADER, tenantId);
    }
    return new AMQP.BasicProperties.Builder()
        .messageId(message.messageId().toString())
        .type(message.messageType())
        .headers(headers)
        .deliveryMode(2)
        .build();
  }

  private synchronized void reject(int index, String error) {
    settled[index] = true;
    errors[index] = error;
    permanent[index] = true;
  }

  /** The publish of message {@code index} threw: it did not reach the broker. */
  private synchronized void failPublished(int index, String error) {
    if (!settled[index]) {
      settled[index] = true;
      errors[index] = error;
      unreached[index] = true;
      unsettled--;
    }
  }

  /** Messages from {@code from} on were never published. */
  private synchronized void failUnpublished(int from, String error) {
    failUnpublished(from, error, false);
  }

  /**
   * Messages from {@code from} on were never published: rejected for good when {@code forGood}
   * (their destination takes nothing), else unavailable.
   */
  private synchronized void failUnpublished(int from, String error, boolean forGood) {
    for (int i = from; i < messages.size(); i++) {
      errors[i] = error;
      permanent[i] = forGood;
      unreached[i] = !forGood;
      settled[i] = true;
    }
  }

  @Override
  public synchronized void handleAck(long deliveryTag, boolean multiple) {
    settle(deliveryTag, multiple, null);
  }

  @Override
  public synchronized void handleNack(long deliveryTag, boolean multiple) {
    settle(
        deliveryTag,
        multiple,
        "RabbitMQ refused the message (basic.nack), for example because the queue is full and"
            + " rejects publishes, at "
            + destination);
  }

  @Override
  public synchronized void handleReturn(
      int replyCode,
      String replyText,
      String exchange,
      String routingKey,
      AMQP.BasicProperties properties,
      byte[] body) {
    List<Integer> indexes = indexesById.get(properties.getMessageId());
    if (indexes == null) {
      return;
    }
    String error =
        "unroutable: RabbitMQ returned the message ("
            + replyCode
            + " "
            + replyText
            + ") from "
            + destination
            + "; no queue is bound for it";
    for (int index : indexes) {
      returned[index] = error;
    }
  }

  @Override
  public synchronized void shutdownCompleted(ShutdownSignalException cause) {
    String error = "the channel closed before RabbitMQ confirmed the message: " + describe(cause);
    boolean missing = exchangeMissing(cause);
    if (missing) {
      destinationRejected = error;
      destinationMissing = true;
    }
    // A 404 closes the channel on the publish itself: the message never reached an exchange.
    settleRemaining(error, missing);
  }

  /** An ack settles a message as accepted, unless it was returned; a nack as failed. */
  private void settle(long deliveryTag, boolean multiple, @Nullable String nackError) {
    int last = (int) (deliveryTag - firstSequence);
    int first = multiple ? 0 : last;
    for (int p = Math.max(first, 0); p <= last && p < published; p++) {
      int i = indexBySequence[p];
      if (!settled[i]) {
        settled[i] = true;
        errors[i] = nackError != null ? nackError : returned[i];
        permanent[i] = nackError == null && returned[i] != null;
        if (permanent[i]) {
          destinationRejected = returned[i];
        }
        unsettled--;
      }
    }
    notifyAll();
  }

  private void settleRemaining(String error, boolean notReached) {
    for (int p = 0; p < published; p++) {
      int i = indexBySequence[p];
      if (!settled[i]) {
        settled[i] = true;
        errors[i] = error;
        unreached[i] = notReached;
        unsettled--;
      }
    }
    notifyAll();
  }

  /** Whether the broker closed the channel because the exchange does not exist (404). */
  private static boolean exchangeMissing(ShutdownSignalException cause) {
    return cause != null
        && cause.getReason() instanceof AMQP.Channel.Close close
        && close.getReplyCode() == NOT_FOUND;
  }

  private static String describe(ShutdownSignalException cause) {
    Object reason = cause.getReason();
    if (reason instanceof AMQP.Channel.Close close) {
      return close.getReplyCode() + " " + close.getReplyText();
    }
    if (reason instanceof AMQP.Connection.Close close) {
      return "connection closed: " + close.getReplyCode() + " " + close.getReplyText();
    }
    return SendResult.describe(cause);
  }
}
