/**
 * The vocabulary every Relayer module shares: the exception hierarchy ({@link
 * dev.relayer.api.RelayerException} and its subclasses) and, in {@code dev.relayer.api.spi}, the
 * transport SPI that broker adapters implement.
 *
 * <p>Bad input to any public entry point throws {@link dev.relayer.api.InvalidInputException}
 * before anything is written; every problem found is listed, each naming the offending option.
 */
package dev.relayer.api;
