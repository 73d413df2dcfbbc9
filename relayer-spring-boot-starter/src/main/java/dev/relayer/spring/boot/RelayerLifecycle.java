package dev.relayer.spring.boot;

import dev.relayer.dispatch.Relayer;
import org.springframework.context.SmartLifecycle;

/**
 * Starts {@link Relayer} when the application context starts and closes it when the context stops,
 * in phase {@link #PHASE}.
 *
 * <p>Lifecycles start in ascending phase and stop in descending phase, so Relayer starts before the
 * web server takes requests and stops after it has stopped taking them (Spring Boot's web server
 * graceful shutdown runs in phase {@code DEFAULT_PHASE - 1024}, the server itself stops in {@code
 * DEFAULT_PHASE - 2048}): requests still in flight commit their messages while Relayer runs. Every
 * lifecycle stops before any bean is destroyed, so Relayer releases its leases while the data
 * source is still open.
 *
 * <p>{@link #start()} runs {@link Relayer#start()}: a missing table fails the context's start-up
 * with {@link dev.relayer.api.SchemaMismatchException} naming it. {@link #stop()} runs {@link
 * Relayer#close()}; a closed Relayer cannot start again, so a context stopped and started again
 * fails its second start with {@link IllegalStateException} (build a new context instead).
 */
public final class RelayerLifecycle implements SmartLifecycle {

  /** {@code SmartLifecycle.DEFAULT_PHASE - 4096}: below the web server's lifecycles. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final Relayer relayer;
  private volatile boolean running;

  /** A lifecycle for {@code relayer}. */
  public RelayerLifecycle(Relayer relayer) {
    this.relayer = relayer;
  }

  @Override
  public void start() {
    relayer.start();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    relayer.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
