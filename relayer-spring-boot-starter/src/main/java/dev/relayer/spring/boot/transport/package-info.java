/**
 * Transports from properties: a {@code RabbitMqTransport}, {@code KafkaTransport} or {@code
 * NatsTransport} bean from {@code relayer.rabbitmq.*}, {@code relayer.kafka.*} or {@code
 * relayer.nats.*}.
 *
 * <p>Each is created only when its transport module is on the class path (an optional dependency of
 * the starter: the application adds {@code relayer-transport-rabbitmq}, {@code
 * relayer-transport-kafka} or {@code relayer-transport-nats}) <em>and</em> {@code
 * relayer.<broker>.enabled=true}: having a client library on the class path, for other reasons,
 * never makes Relayer connect anywhere. The application's own bean of the transport's type wins.
 * The bean is an ordinary {@code Transport} bean, which {@link
 * dev.relayer.spring.boot.RelayerAutoConfiguration} registers as a shared transport; Spring closes
 * it after the Relayer. Invalid values fail start-up naming the property ({@code
 * relayer.nats.max-batch-size must be between 1 and 10000, was 0}).
 *
 * <h2>Connection settings</h2>
 *
 * <ul>
 *   <li>RabbitMQ: {@code relayer.rabbitmq.uri}, when set, is the broker. Otherwise the transport
 *       takes the client factory of the application's Spring AMQP connection factory (the bean that
 *       Spring Boot makes from {@code spring.rabbitmq.*}: credentials, virtual host, TLS from
 *       {@code spring.rabbitmq.ssl.*} or its SSL bundle) and works on a copy of it, with automatic
 *       recovery on; since that factory holds only the first address, the transport connects to
 *       every address of Spring Boot's {@code RabbitConnectionDetails} ({@code
 *       spring.rabbitmq.addresses}), in order. {@code relayer.rabbitmq.addresses} replaces the
 *       addresses in both cases. With neither a URI nor a Spring connection factory, start-up fails
 *       naming {@code relayer.rabbitmq.uri}.
 *   <li>Kafka: {@code relayer.kafka.bootstrap-servers}, when set, is the cluster, and the producer
 *       is configured from {@code relayer.kafka.*} alone. Otherwise the producer is configured as
 *       Spring Boot configures its own: {@code KafkaProperties.buildProducerProperties()} ({@code
 *       spring.kafka.producer.*} and the like) without its key and value serializers, then the
 *       bootstrap servers, security protocol and SSL bundle of {@code KafkaConnectionDetails}
 *       ({@code spring.kafka.ssl.bundle}). {@code relayer.kafka.ssl.bundle} names an SSL bundle for
 *       the transport in either case. {@code relayer.kafka.properties.*} is applied last. {@code
 *       acks}, {@code enable.idempotence} and the serializers are the transport's; another value
 *       for them fails start-up.
 *   <li>NATS: Spring Boot has no NATS settings; {@code relayer.nats.url} is required.
 * </ul>
 */
@NullMarked
package dev.relayer.spring.boot.transport;

import org.jspecify.annotations.NullMarked;
