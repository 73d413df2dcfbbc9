package dev.relayer.spring.modulith;

import org.springframework.modulith.events.Externalized;

/** Externalized, but without a Relayer message type. */
@Externalized(ModulithRabbitMqIT.DESTINATION)
public record Untyped(String id) {}
