package dev.relayer.bench.relayer;

import dev.relayer.bench.pipeline.DrainingSystem;
import dev.relayer.dispatch.RelayerDispatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Direct dispatch of rows that are already waiting: a feeder thread hands their ids to {@link
 * RelayerDispatcher#afterCommit} in chunks, only when the dispatcher's queue has room for a whole
 * chunk, so no hand-off is dropped — as if the rows had just been committed, as fast as the workers
 * take them. The ids are the contiguous range a bulk load produced.
 */
final class DirectFeeder implements DrainingSystem, AutoCloseable {

  /** Where the ids go: a dispatcher's or a {@code Relayer}'s hand-off and its queue. */
  interface Target {
    void afterCommit(List<Long> ids);

    int queuedIds();
  }

  private final Target dispatcher;
  private final long firstId;
  private final long lastId;
  private final int queueCapacity;
  private final int chunk;
  private Thread thread;
  private volatile boolean stopped;

  /** Feeds ids {@code firstId..lastId} to {@code dispatcher}, whose queue holds queueCapacity. */
  DirectFeeder(RelayerDispatcher dispatcher, long firstId, long lastId, int queueCapacity) {
    this(
        new Target() {
          @Override
          public void afterCommit(List<Long> ids) {
            dispatcher.afterCommit(ids);
          }

          @Override
          public int queuedIds() {
            return dispatcher.queuedIds();
          }
        },
        dispatcher.options().claimBatchSize(),
        firstId,
        lastId,
        queueCapacity);
  }

  /**
   * Feeds ids {@code firstId..lastId} to {@code target} in chunks of at most {@code claimBatch}.
   */
  DirectFeeder(Target target, int claimBatch, long firstId, long lastId, int queueCapacity) {
    this.dispatcher = target;
    this.firstId = firstId;
    this.lastId = lastId;
    this.queueCapacity = queueCapacity;
    this.chunk = Math.max(1, Math.min(queueCapacity / 2, claimBatch));
  }

  @Override
  public synchronized void startDraining() {
    if (thread != null) {
      return;
    }
    thread = new Thread(this::feed, "bench-direct-feeder");
    thread.setDaemon(true);
    thread.start();
  }

  private void feed() {
    long next = firstId;
    while (next <= lastId && !stopped) {
      if (queueCapacity - dispatcher.queuedIds() < chunk) {
        LockSupport.parkNanos(100_000);
        continue;
      }
      long end = Math.min(lastId, next + chunk - 1);
      List<Long> ids = new ArrayList<>((int) (end - next + 1));
      for (long id = next; id <= end; id++) {
        ids.add(id);
      }
      dispatcher.afterCommit(ids);
      next = end + 1;
    }
  }

  @Override
  public synchronized void close() {
    stopped = true;
    if (thread != null) {
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
