/**
 * The vocabulary every Relayer module shares: the exception hierarchy ({@link
 * dev.relayer.api.RelayerException} and its subclasses) and, in {@code dev.relayer.api.spi}, the
 * transport SPI that broker adapters implement.
 *
 * <p>Bad input to any public entry point throws {@link dev.relayer.api.InvalidInputException}
 * before anything is written; every problem found is listed, each naming the offending option.
 * {@link dev.relayer.api.TextChecks} is the rule every text value Relayer writes follows: no NUL
 * character and no unpaired UTF-16 surrogate.
 */
@NullMarked
package dev.relayer.api;

import org.jspecify.annotations.NullMarked;
