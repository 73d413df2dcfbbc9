/**
 * Typed enqueue: {@link dev.relayer.dispatch.message.MessageTypes} registers message types and
 * routes in code, beside the {@link dev.relayer.api.message.RelayerMessage} annotation. {@link
 * dev.relayer.dispatch.Relayer#publish} and {@link dev.relayer.dispatch.Relayer#enqueue(
 * org.jooq.DSLContext, Object, dev.relayer.api.message.MessageRoute)} use them.
 *
 * <h2>How a message is derived from an object</h2>
 *
 * <ol>
 *   <li>Type: the class's registration, else its own {@code @RelayerMessage}, else the registration
 *       of its nearest registered superclass. Never the Java class name.
 *   <li>Route: the route given at the call, whole; else the registration's route function; else the
 *       annotation's transport and destination, with the ordering key and tenant of the accessors
 *       marked {@link dev.relayer.api.message.OrderingKey} and {@link
 *       dev.relayer.api.message.TenantId}.
 *   <li>Body and {@code content-type} header: the Relayer's {@link
 *       dev.relayer.api.spi.MessageSerializer}.
 * </ol>
 *
 * Each step that cannot complete throws {@link dev.relayer.api.InvalidInputException} naming the
 * class and what is missing, before anything is written: the caller's transaction holds no row of
 * the message and stays usable.
 */
@NullMarked
package dev.relayer.dispatch.message;

import org.jspecify.annotations.NullMarked;
