package dev.relayer.spring.modulith;

import dev.relayer.api.message.RelayerMessage;
import org.springframework.modulith.events.Externalized;

/**
 * An application event that Modulith externalizes to the queue {@link ModulithRabbitMqIT#QUEUE}
 * (through RabbitMQ's default exchange), keyed by order.
 */
@Externalized(ModulithRabbitMqIT.DESTINATION + "::#{orderId()}")
@RelayerMessage("order.placed")
public record OrderPlaced(String orderId, int cents) {}
