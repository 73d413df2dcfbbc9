package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.spi.RelayerEventListener;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Fans events out to the registered listeners; a throwing listener is logged and skipped. */
public final class Events {

  private static final Logger log = LoggerFactory.getLogger(Events.class);
  private final List<RelayerEventListener> listeners;

  public Events(List<RelayerEventListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  public void emit(Consumer<RelayerEventListener> event) {
    for (RelayerEventListener listener : listeners) {
      try {
        event.accept(listener);
      } catch (RuntimeException e) {
        log.warn("Relayer event listener {} threw; ignored", listener, e);
      }
    }
  }
}
