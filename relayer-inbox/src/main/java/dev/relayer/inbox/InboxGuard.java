package dev.relayer.inbox;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.RelayerStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a consumer's handler at most once per message id: one jOOQ transaction on the application's
 * {@code DSLContext} records {@code (consumer, message id)} in Relayer's inbox and runs the handler
 * only when the record is new; the caller acknowledges the delivery after that transaction
 * committed ({@link InboxResult#acknowledge()}).
 *
 * <pre>{@code
 * InboxGuard billing = InboxGuard.create(relayer.store(), dsl, "billing");
 * InboxResult result = billing.handle(RabbitMqInbox.read(delivery), (tx, message) -> bill(tx, message));
 * if (result.acknowledge()) channel.basicAck(tag, false); else channel.basicNack(tag, false, true);
 * }</pre>
 *
 * (The broker adapters {@link dev.relayer.inbox.rabbitmq.RabbitMqInbox}, {@link
 * dev.relayer.inbox.kafka.KafkaInbox} and {@link dev.relayer.inbox.nats.NatsInbox} do the reading
 * and acknowledging.)
 *
 * <p>What happens in each case:
 *
 * <ul>
 *   <li><b>first delivery</b>: the record and the handler's work commit together; {@link
 *       InboxResult.Processed}, acknowledge;
 *   <li><b>redelivery of a processed message</b> (the broker's redelivery, a crash between the
 *       commit and the acknowledgement, a second publish of the same message id by the sweeper):
 *       the insert finds the record, the handler does not run; {@link InboxResult.Duplicate},
 *       acknowledge;
 *   <li><b>the handler throws</b> (or the commit fails): the record and the work roll back; {@link
 *       InboxResult.Failed}, do not acknowledge, and the broker's redelivery runs the handler
 *       again;
 *   <li><b>two deliveries of one id at once</b> (on two consumers): the second insert waits for the
 *       first transaction; one runs the handler, the other sees a duplicate once the first commits
 *       (or runs the handler if the first rolled back).
 * </ul>
 *
 * <p>The transaction is {@code dsl.transactionResult(...)}: with Spring Boot's jOOQ {@code
 * DSLContext} that is a Spring transaction, and inside a transaction already open (a nested jOOQ
 * transaction, or an enclosing Spring {@code @Transactional}) it is a savepoint that commits with
 * the enclosing transaction. Acknowledge only after the outermost commit. Deduplication lasts as
 * long as the inbox record: {@code inboxRetention} (default 7 days) must exceed the latest a
 * redelivery can arrive.
 *
 * <p>Thread-safe; one guard per consumer name serves every thread.
 */
public final class InboxGuard {

  private static final Logger log = LoggerFactory.getLogger(InboxGuard.class);

  private final RelayerStore store;
  private final DSLContext dsl;
  private final String consumer;

  private InboxGuard(RelayerStore store, DSLContext dsl, String consumer) {
    this.store = store;
    this.dsl = dsl;
    this.consumer = consumer;
  }

  /**
   * A guard for {@code consumer}'s deliveries.
   *
   * @param store the store of the tables that hold the inbox ({@code relayer.store()})
   * @param dsl the application's {@code DSLContext}; each delivery runs in a transaction on it
   * @param consumer the consumer's name, the first half of the inbox key: two consumers of one
   *     message each process it once; not blank
   * @throws InvalidInputException when {@code consumer} is null or blank, or {@code store} or
   *     {@code dsl} is null
   */
  public static InboxGuard create(RelayerStore store, DSLContext dsl, String consumer) {
    if (store == null || dsl == null || consumer == null || consumer.isBlank()) {
      List<String> problems = new ArrayList<>(3);
      if (store == null) {
        problems.add("store must not be null");
      }
      if (dsl == null) {
        problems.add("dsl must not be null");
      }
      if (consumer == null || consumer.isBlank()) {
        problems.add("consumer must not be " + (consumer == null ? "null" : "blank"));
      }
      throw new InvalidInputException(problems);
    }
    return new InboxGuard(store, dsl, consumer);
  }

  /** The consumer's name, as recorded in the inbox. */
  public String consumer() {
    return consumer;
  }

  /**
   * Records the message id and runs {@code handler} in one transaction, only for a first delivery.
   * Never throws for the handler's failure: it comes back as {@link InboxResult.Failed}, after the
   * rollback. An {@link Error} is rethrown after the rollback.
   */
  public InboxResult handle(IncomingMessage message, InboxHandler handler) {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(handler, "handler");
    Exception[] handlerFailure = new Exception[1];
    boolean first;
    try {
      first =
          dsl.transactionResult(
              configuration -> {
                DSLContext tx = configuration.dsl();
                if (store.tryRecordInbox(tx, consumer, message.messageId())
                    == InboxOutcome.DUPLICATE) {
                  return false;
                }
                try {
                  handler.handle(tx, message);
                } catch (Exception e) {
                  handlerFailure[0] = e;
                  throw e;
                }
                return true;
              });
    } catch (RuntimeException e) {
      Exception cause = handlerFailure[0] != null ? handlerFailure[0] : e;
      log.debug(
          "consumer={} id={} type={} handler failed, rolled back",
          consumer,
          message.messageId(),
          message.messageType(),
          cause);
      return new InboxResult.Failed(cause);
    }
    if (!first) {
      log.debug(
          "consumer={} id={} type={} dropped: a redelivery, its id is in the inbox",
          consumer,
          message.messageId(),
          message.messageType());
      return new InboxResult.Duplicate();
    }
    return new InboxResult.Processed();
  }

  /**
   * {@link #handle} for callers whose broker integration settles the delivery from the outcome of
   * the listener method (Spring's listener containers): returns normally for a first delivery and
   * for a duplicate, so the container acknowledges, and throws the handler's exception (a checked
   * one wrapped in {@link InboxHandlerException}) after the rollback, so the container gives the
   * delivery back.
   *
   * @return {@link InboxResult.Processed} or {@link InboxResult.Duplicate}
   */
  public InboxResult handleOrThrow(IncomingMessage message, InboxHandler handler) {
    InboxResult result = handle(message, handler);
    if (result instanceof InboxResult.Failed failed) {
      Exception cause = failed.cause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new InboxHandlerException(consumer, message, cause);
    }
    return result;
  }
}
