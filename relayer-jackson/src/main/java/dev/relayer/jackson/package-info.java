/**
 * JSON bodies for typed messages with Jackson 3: {@link
 * dev.relayer.jackson.JacksonMessageSerializer}. Jackson 3 ({@code tools.jackson}) because Spring
 * Boot 4 uses it by default; an application on Jackson 2 implements {@link
 * dev.relayer.api.spi.MessageSerializer} over its {@code
 * com.fasterxml.jackson.databind.ObjectMapper} in a few lines.
 */
@NullMarked
package dev.relayer.jackson;

import org.jspecify.annotations.NullMarked;
