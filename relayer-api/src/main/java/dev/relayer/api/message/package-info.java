/**
 * Typed messages: {@link dev.relayer.api.message.RelayerMessage} gives a class its stable message
 * type and, optionally, its route; {@link dev.relayer.api.message.OrderingKey} and {@link
 * dev.relayer.api.message.TenantId} mark the accessors that give its ordering key and tenant; a
 * {@link dev.relayer.api.message.MessageRoute} is a route given in code. A {@link
 * dev.relayer.api.spi.MessageSerializer} turns the object into the body. Event classes need only
 * this module (no Jackson, no database).
 */
@NullMarked
package dev.relayer.api.message;

import org.jspecify.annotations.NullMarked;
