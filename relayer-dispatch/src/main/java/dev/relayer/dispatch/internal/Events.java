package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.spi.PassKind;
import dev.relayer.dispatch.spi.RelayerEventListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans events out to the registered listeners; a throwing listener is logged and skipped. While
 * none is registered, {@link #active()} is false and the callers build no event and read no clock.
 */
public final class Events {

  private static final Logger log = LoggerFactory.getLogger(Events.class);

  /** What {@link #passStarted()} returns when no listener is registered. */
  public static final long NOT_TIMED = Long.MIN_VALUE;

  private final List<RelayerEventListener> listeners;

  public Events(List<RelayerEventListener> listeners) {
    this.listeners = new CopyOnWriteArrayList<>(listeners);
  }

  /** Whether any listener is registered: events are worth building. */
  public boolean active() {
    return !listeners.isEmpty();
  }

  /** Registers a listener from now on. */
  public void add(RelayerEventListener listener) {
    listeners.add(listener);
  }

  /** Unregisters a listener; events already collected may still reach it once. */
  public void remove(RelayerEventListener listener) {
    listeners.remove(listener);
  }

  /**
   * The monotonic clock now, to time a pass, when a listener is registered; {@link #NOT_TIMED}
   * otherwise (nothing is measured).
   */
  public long passStarted() {
    return active() ? System.nanoTime() : NOT_TIMED;
  }

  /** Reports a pass that {@link #passStarted()} timed; nothing when it was not timed. */
  public void passFinished(PassKind kind, long started) {
    if (started == NOT_TIMED) {
      return;
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    emit(l -> l.passFinished(kind, took));
  }

  /** Emits events collected during a pass (see {@link OutcomeWriter#complete}), in order. */
  public void emitAll(List<Consumer<RelayerEventListener>> collected) {
    collected.forEach(this::emit);
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
