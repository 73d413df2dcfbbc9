/**
 * Relayer as Spring Modulith's event externalization backend: {@link
 * dev.relayer.spring.modulith.RelayerEventExternalizer}, auto-configured by {@link
 * dev.relayer.spring.modulith.RelayerModulithAutoConfiguration}.
 *
 * <h2>In the publishing transaction, not after it</h2>
 *
 * Spring Modulith 2.0's externalizers ({@code spring-modulith-events-amqp}, {@code -kafka}, ...)
 * extend an internal support class whose {@code externalize(Object)} is an
 * {@code @ApplicationModuleListener}: a transactional event listener that runs after the publishing
 * transaction commits, asynchronously, in a new transaction, guarded by Modulith's event
 * publication registry. A backend plugged in there would write the Relayer message after the
 * commit, in another transaction: a crash in between loses nothing only thanks to the registry, and
 * the message is not part of the business transaction. (Modulith 2.1 adds an outbox mode; it is not
 * in 2.0.) So this module does not implement that SPI. It keeps Modulith's configuration — {@link
 * org.springframework.modulith.events.EventExternalizationConfiguration} decides which events are
 * externalized, how they are mapped and where they go — and listens to published events
 * synchronously: the message is written by the {@code publishEvent} call, in the publisher's
 * transaction, so a rollback drops it and a commit hands it to Relayer's dispatcher. An event
 * published outside a transaction is refused with {@link IllegalStateException}.
 *
 * <h2>Mapping</h2>
 *
 * <ul>
 *   <li>Transport: {@code relayer.modulith.transport}, else the only {@code Transport} bean.
 *   <li>Destination: the routing target, after SpEL ({@code #{...}}) is evaluated against the
 *       event, as Modulith's own externalizers do: a topic for Kafka, a subject for NATS, {@code
 *       exchange/routingKey} for RabbitMQ (so {@code @Externalized("orders/order.placed")}).
 *   <li>Ordering key: the routing key ({@code @Externalized("orders::#{orderId()}")}), evaluated
 *       the same way. Like Modulith's Kafka record key, it orders the events that share it; it is
 *       not an AMQP routing key. A target without key is unordered.
 *   <li>Message type, body and {@code content-type}: the typed enqueue of the Relayer on the object
 *       {@code EventExternalizationConfiguration.map(event)} returns, so its class needs a {@link
 *       dev.relayer.api.message.RelayerMessage} type (or a {@code MessageTypes} registration) and
 *       the Relayer a serializer. Routes in {@code @RelayerMessage} are not used: the routing
 *       target is the route.
 *   <li>Not carried: headers set with the configuration's {@code headers(..)}, and no {@code
 *       EventExternalized} event is published (the message is written, not yet sent).
 * </ul>
 *
 * Do not also add a Modulith broker externalizer ({@code spring-modulith-events-amqp}, ...): it
 * would send each event a second time after the commit.
 */
@NullMarked
package dev.relayer.spring.modulith;

import org.jspecify.annotations.NullMarked;
