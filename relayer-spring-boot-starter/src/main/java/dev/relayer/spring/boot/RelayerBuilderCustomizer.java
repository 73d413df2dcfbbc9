package dev.relayer.spring.boot;

import dev.relayer.dispatch.Relayer;

/**
 * Adjusts the {@link Relayer.Builder} of the auto-configured {@link Relayer} after the {@code
 * relayer.*} properties and the {@code Transport} beans were applied: event listeners, a clock,
 * health thresholds, a listening data source. Every bean of this type is applied, in {@code
 * Ordered} order.
 */
@FunctionalInterface
public interface RelayerBuilderCustomizer {

  /**
   * Customizes {@code builder}.
   *
   * @param builder the builder, before {@code build()}
   */
  void customize(Relayer.Builder builder);
}
