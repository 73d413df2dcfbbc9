/**
 * The inbox guard for the RabbitMQ Java client: {@link dev.relayer.inbox.rabbitmq.RabbitMqInbox}.
 * Needs {@code com.rabbitmq:amqp-client} on the class path.
 */
@NullMarked
package dev.relayer.inbox.rabbitmq;

import org.jspecify.annotations.NullMarked;
