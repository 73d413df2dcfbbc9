package dev.relayer.dispatch.internal;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names threads {@code relayer-<store>-<component>-N}; daemon, so a forgotten close never hangs a
 * JVM.
 */
public final class NamedThreads implements ThreadFactory {

  private final String prefix;
  private final AtomicInteger next = new AtomicInteger(1);

  public NamedThreads(String store, String component) {
    this.prefix = "relayer-" + store + "-" + component + "-";
  }

  @Override
  public Thread newThread(Runnable task) {
    Thread thread = new Thread(task, prefix + next.getAndIncrement());
    thread.setDaemon(true);
    return thread;
  }
}
