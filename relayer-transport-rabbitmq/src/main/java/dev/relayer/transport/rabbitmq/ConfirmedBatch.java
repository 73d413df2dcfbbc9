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

/**
 * One batch published on its own channel in confirm mode, and the bookkeeping that turns publisher
 * confirms, returns and a channel shutdown into one result per message.
 *
 * <p>Publish sequence numbers of a fresh confirm channel start at 1, so message {@code i} of the
 * batch is sequence number {@code first + i}. RabbitMQ sends {@code basic.return} for an unroutable
 * mandatory message before its {@code basic.ack}, on the same connection thread, so a return is
 * always recorded before the ack that settles the message.
 */
final class ConfirmedBatch implements ConfirmListener, ReturnListener, ShutdownListener {

  private final boolean ordered;
  private final List<OutgoingMessage> messages;
  private final RabbitMqDestination destination;
  private final String[] errors;
  private final boolean[] settled;
  private final String[] returned;
  private final Map<String, List<Integer>> indexesById = new HashMap<>();
  private long firstSequence = -1;
  private int published;
  private int unsettled;

  /**
   * @param ordered publish one message at a time, waiting for its confirm, and stop at the first
   *     failure
   */
  ConfirmedBatch(List<OutgoingMessage> messages, RabbitMqDestination destination, boolean ordered) {
    this.ordered = ordered;
    this.messages = messages;
    this.destination = destination;
    this.errors = new String[messages.size()];
    this.settled = new boolean[messages.size()];
    this.returned = new String[messages.size()];
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
        failUnpublished(
            i, "not sent: the batch timeout of " + timeout + " passed while publishing");
        break;
      }
      OutgoingMessage message = messages.get(i);
      synchronized (this) {
        // Count the message before publishing it: its confirm may arrive before basicPublish
        // returns.
        published = i + 1;
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
        failPublished(i, "not sent: " + SendResult.describe(e));
        failUnpublished(i + 1, "not sent: an earlier message of the batch could not be published");
        break;
      }
      if (ordered && !awaitSettled(deadlineNanos, timeout)) {
        failUnpublished(i + 1, "not sent: an earlier message of this ordered batch failed");
        break;
      }
    }
    synchronized (this) {
      awaitSettled(deadlineNanos, timeout);
      List<SendResult> results = new ArrayList<>(errors.length);
      for (String error : errors) {
        results.add(error == null ? SendResult.accepted() : SendResult.failed(error));
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
        settleRemaining(
            "no publisher confirm from RabbitMQ within the batch timeout of " + timeout);
        break;
      }
      wait(Math.max(1, Duration.ofNanos(remaining).toMillis()));
    }
    for (int i = 0; i < published; i++) {
      if (errors[i] != null) {
        return false;
      }
    }
    return true;
  }

  /** Whether every published message was settled by the broker before the deadline. */
  synchronized boolean completed() {
    return unsettled == 0 && published == messages.size();
  }

  private static AMQP.BasicProperties properties(OutgoingMessage message) {
    return new AMQP.BasicProperties.Builder()
        .messageId(message.messageId().toString())
        .type(message.messageType())
        .headers(new HashMap<>(message.headers()))
        .deliveryMode(2)
        .build();
  }

  private synchronized void failPublished(int index, String error) {
    if (!settled[index]) {
      settled[index] = true;
      errors[index] = error;
      unsettled--;
    }
  }

  private synchronized void failUnpublished(int from, String error) {
    for (int i = from; i < messages.size(); i++) {
      errors[i] = error;
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
    settleRemaining("the channel closed before RabbitMQ confirmed the message: " + describe(cause));
  }

  private void settle(long deliveryTag, boolean multiple, String error) {
    int last = (int) (deliveryTag - firstSequence);
    int first = multiple ? 0 : last;
    for (int i = Math.max(first, 0); i <= last && i < published; i++) {
      if (!settled[i]) {
        settled[i] = true;
        errors[i] = error != null ? error : returned[i];
        unsettled--;
      }
    }
    notifyAll();
  }

  private void settleRemaining(String error) {
    for (int i = 0; i < published; i++) {
      if (!settled[i]) {
        settled[i] = true;
        errors[i] = error;
        unsettled--;
      }
    }
    notifyAll();
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
