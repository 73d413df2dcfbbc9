/**
 * The transport SPI. Implement {@link dev.relayer.api.spi.Transport} to deliver outbox messages to
 * a broker; register it with the dispatcher under its {@link dev.relayer.api.spi.Transport#name()}.
 *
 * <p>Contract, in short: one result per message in batch order; "accepted" means the broker has
 * taken responsibility; never block past the batch timeout; a transport that declares {@link
 * dev.relayer.api.spi.Transport#preservesBatchOrder()} keeps the batch's order and stops at the
 * first failure. Delivery is at least once: the same message id may be sent again after a crash, so
 * adapters pass the message id to the broker (AMQP message-id, a Kafka header, {@code Nats-Msg-Id})
 * for consumers and brokers to deduplicate on.
 */
package dev.relayer.api.spi;
