package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.spi.DeliveryComponent;
import dev.relayer.dispatch.spi.PassKind;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.Claim;
import dev.relayer.store.ClaimByIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Direct dispatch: ids handed over after commit wait in a bounded queue; workers claim them in
 * their own committed transaction, send, and complete them in another. A full queue drops the
 * hand-off instead of blocking the committing thread; the sweeper delivers such rows later.
 */
public final class DirectDispatcher {

  private static final Logger log = LoggerFactory.getLogger(DirectDispatcher.class);

  private final DeliveryEngine engine;
  private final DSLContext dsl;
  private final Duration claimDuration;
  private final int claimBatchSize;
  private final int workers;
  private final BlockingQueue<Long> queue;
  private final BackgroundWork work;

  public DirectDispatcher(
      DeliveryEngine engine,
      DSLContext dsl,
      Duration claimDuration,
      int claimBatchSize,
      int workers,
      int queueCapacity) {
    this.engine = engine;
    this.dsl = dsl;
    this.claimDuration = claimDuration;
    this.claimBatchSize = claimBatchSize;
    this.workers = workers;
    this.queue = new ArrayBlockingQueue<>(queueCapacity);
    this.work = new BackgroundWork(engine.store().displayName(), "direct dispatch", log);
  }

  /** Queues ids without blocking; returns how many were dropped because the queue was full. */
  public int offer(Collection<Long> ids) {
    int dropped = 0;
    for (Long id : ids) {
      if (!queue.offer(id)) {
        dropped++;
      }
    }
    if (dropped > 0) {
      int count = dropped;
      log.debug("store={} direct queue full, dropped {} ids", engine.store().displayName(), count);
      engine.handoffs().dropped(count);
      engine.events().emit(l -> l.handoffDropped(count));
    }
    return dropped;
  }

  /** Ids waiting in the queue. */
  public int queued() {
    return queue.size();
  }

  /** Starts the worker threads; idempotent, and does nothing after {@link #stop}. */
  public void start() {
    work.start(threads -> threads.work("direct", workers, this::takeBatches));
  }

  /**
   * Stops taking work, waits up to {@code timeout} for in-flight batches, then interrupts; safe
   * before start and twice.
   */
  public void stop(Duration timeout) {
    if (work.stop()) {
      work.drain(timeout);
    }
  }

  /** The body of a worker thread: takes batches of queued ids and dispatches them until stopped. */
  private void takeBatches() {
    while (work.running()) {
      try {
        Long first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        List<Long> ids = new ArrayList<>(Math.min(claimBatchSize, queue.size() + 1));
        ids.add(first);
        queue.drainTo(ids, claimBatchSize - 1);
        dispatch(ids);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Throwable e) {
        log.error(
            "store={} direct dispatch batch failed; rows stay for retry",
            engine.store().displayName(),
            e);
      }
    }
  }

  private void dispatch(List<Long> ids) {
    long started = engine.events().passStarted();
    Claim claim =
        dsl.transactionResult(
            tx ->
                engine
                    .passes()
                    .direct(tx.dsl())
                    .claimByIds(new ClaimByIds(ids, engine.clock().instant(), claimDuration)));
    if (claim.isEmpty()) {
      engine.events().passFinished(PassKind.DIRECT, started);
      return;
    }
    SendOutcome outcome = engine.send(claim);
    List<Consumer<RelayerEventListener>> events =
        dsl.transactionResult(
            tx ->
                engine.complete(
                    engine.passes().direct(tx.dsl()), claim, outcome, DeliveryComponent.DIRECT));
    engine.emit(events);
    engine.events().passFinished(PassKind.DIRECT, started);
  }
}
