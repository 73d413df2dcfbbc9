package dev.relayer.spring.boot.inbox;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a listener method at most once per Relayer message id: the method runs inside a Spring
 * transaction that first records {@code (consumer, message id)} in Relayer's inbox, only for a
 * first delivery; a redelivery returns without running it. Put it on a {@code @RabbitListener} or
 * {@code @KafkaListener} method that takes the broker's message as a parameter — Spring AMQP's
 * {@code org.springframework.amqp.core.Message}, Kafka's {@code ConsumerRecord}, or a NATS {@code
 * io.nats.client.Message} — from which the message id (and type and tenant) are read.
 *
 * <pre>{@code
 * @RabbitListener(queues = "orders")
 * @InboxGuarded("shipping")
 * public void ship(Message message) {
 *   dsl.insertInto(SHIPMENTS)...execute();   // joins the guard's transaction
 * }
 * }</pre>
 *
 * The container acknowledges after the method returns, so after the commit; a duplicate returns
 * normally and is acknowledged; a failure rolls back the inbox record with the work and is
 * rethrown, so the container gives the delivery back (RabbitMQ requeues it, Spring Kafka's error
 * handler seeks back to it). Writes through the application's {@code DSLContext} (or any {@code
 * DataSource}-based access that joins Spring transactions) take part in the transaction. The guard
 * opens the transaction: do not make the method {@code @Transactional} as well.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface InboxGuarded {

  /** The consumer's name, recorded in the inbox with each message id; not blank. */
  String value();
}
