package dev.relayer.spring.boot.inbox;

import dev.relayer.inbox.IncomingMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Finds the broker's message among a listener method's arguments and reads Relayer's fields from
 * it. Only the readers whose broker classes are on the class path are loaded.
 */
final class DeliveryReaders {

  private record Reader(Class<?> type, Function<Object, IncomingMessage> read) {}

  private final List<Reader> readers = new ArrayList<>(4);

  DeliveryReaders(@Nullable ClassLoader classLoader) {
    if (ClassUtils.isPresent("org.springframework.amqp.core.Message", classLoader)) {
      readers.add(SpringAmqpReader.reader());
    }
    if (ClassUtils.isPresent("com.rabbitmq.client.Delivery", classLoader)
        && ClassUtils.isPresent("com.rabbitmq.client.AMQP", classLoader)) {
      readers.add(RabbitReader.reader());
    }
    if (ClassUtils.isPresent("org.apache.kafka.clients.consumer.ConsumerRecord", classLoader)) {
      readers.add(KafkaReader.reader());
    }
    if (ClassUtils.isPresent("io.nats.client.Message", classLoader)) {
      readers.add(NatsReader.reader());
    }
  }

  /** The first argument a reader knows, read; {@code null} when there is none. */
  @Nullable IncomingMessage read(Object[] arguments) {
    for (Object argument : arguments) {
      if (argument == null) {
        continue;
      }
      if (argument instanceof IncomingMessage incoming) {
        return incoming;
      }
      for (Reader reader : readers) {
        if (reader.type().isInstance(argument)) {
          return reader.read().apply(argument);
        }
      }
    }
    return null;
  }

  private static final class SpringAmqpReader {
    static Reader reader() {
      return new Reader(
          org.springframework.amqp.core.Message.class,
          message -> AmqpMessages.read((org.springframework.amqp.core.Message) message));
    }
  }

  private static final class RabbitReader {
    static Reader reader() {
      return new Reader(
          com.rabbitmq.client.Delivery.class,
          delivery ->
              dev.relayer.inbox.rabbitmq.RabbitMqInbox.read(
                  (com.rabbitmq.client.Delivery) delivery));
    }
  }

  private static final class KafkaReader {
    static Reader reader() {
      return new Reader(
          org.apache.kafka.clients.consumer.ConsumerRecord.class,
          record ->
              dev.relayer.inbox.kafka.KafkaInbox.read(
                  (org.apache.kafka.clients.consumer.ConsumerRecord<?, ?>) record));
    }
  }

  private static final class NatsReader {
    static Reader reader() {
      return new Reader(
          io.nats.client.Message.class,
          message -> dev.relayer.inbox.nats.NatsInbox.read((io.nats.client.Message) message));
    }
  }
}
