package dev.relayer.spring.boot;

import dev.relayer.api.spi.Transport;

/**
 * Wraps each {@code Transport} bean before the auto-configured {@link dev.relayer.dispatch.Relayer}
 * registers it, for example to trace its sends. Every bean of this type is applied to every
 * transport, in {@code Ordered} order (the first applied is the innermost). The {@code Transport}
 * beans themselves stay as they are: other beans that inject them get the undecorated ones.
 */
@FunctionalInterface
public interface RelayerTransportDecorator {

  /**
   * The transport to register in place of {@code transport}.
   *
   * @param transport a {@code Transport} bean, or what an earlier decorator made of it
   * @return the transport to register; its name must stay {@code transport}'s
   */
  Transport decorate(Transport transport);
}
