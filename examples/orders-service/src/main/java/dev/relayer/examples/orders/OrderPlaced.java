package dev.relayer.examples.orders;

import dev.relayer.api.message.RelayerMessage;

/**
 * The message {@link Orders} publishes for each placed order and {@link Shipping} consumes: its
 * type and route are on the annotation, its body is the JSON of its fields ({@code
 * {"orderId":1,"item":"book","quantity":2}}). Unordered: each order has one message, so there is
 * nothing to keep in order.
 */
@RelayerMessage(value = "order.placed", transport = "rabbitmq", destination = "/orders")
record OrderPlaced(long orderId, String item, int quantity) {}
