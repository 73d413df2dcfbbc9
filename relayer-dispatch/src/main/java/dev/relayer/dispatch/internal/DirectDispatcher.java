package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.spi.DeliveryComponent;
import dev.relayer.dispatch.spi.PassKind;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.Passes;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
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

  private final String store;
  private final Passes passes;
  private final Clock clock;
  private final Events events;
  private final Sender sender;
  private final OutcomeWriter outcomes;
  private final HandoffWatch handoffs;
  private final DSLContext dsl;
  private final Settings settings;
  private final BlockingQueue<Long> queue;
  private final BackgroundWork work;

  /**
   * How direct dispatch claims and queues.
   *
   * @param claimDuration how long a claim holds
   * @param claimBatchSize ids a worker claims at once, at most
   * @param workers worker threads
   * @param queueCapacity ids the queue holds; more are dropped (the sweeper has them)
   */
  public record Settings(
      Duration claimDuration, int claimBatchSize, int workers, int queueCapacity) {

    /** The settings {@code options} name. */
    public static Settings of(DispatchOptions options) {
      return new Settings(
          options.claimDuration(),
          options.claimBatchSize(),
          options.workers(),
          options.queueCapacity());
    }
  }

  /**
   * Direct dispatch over {@code delivery}'s parts, claiming and completing in transactions of its
   * own on {@code dsl}.
   */
  public DirectDispatcher(Delivery delivery, Settings settings, DSLContext dsl) {
    this.store = delivery.store();
    this.passes = delivery.passes();
    this.clock = delivery.clock();
    this.events = delivery.events();
    this.sender = delivery.sender();
    this.outcomes = delivery.outcomes();
    this.handoffs = delivery.handoffs();
    this.dsl = dsl;
    this.settings = settings;
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.work = new BackgroundWork(store, "direct dispatch", log);
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
      log.debug("store={} direct queue full, dropped {} ids", store, count);
      handoffs.dropped(count);
      events.emit(l -> l.handoffDropped(count));
    }
    return dropped;
  }

  /** Ids waiting in the queue. */
  public int queued() {
    return queue.size();
  }

  /** Starts the worker threads; idempotent, and does nothing after {@link #stop}. */
  public void start() {
    work.start(threads -> threads.work("direct", settings.workers(), this::takeBatches));
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
        List<Long> ids = new ArrayList<>(Math.min(settings.claimBatchSize(), queue.size() + 1));
        ids.add(first);
        queue.drainTo(ids, settings.claimBatchSize() - 1);
        dispatch(ids);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Throwable e) {
        log.error("store={} direct dispatch batch failed; rows stay for retry", store, e);
      }
    }
  }

  private void dispatch(List<Long> ids) {
    long started = events.passStarted();
    Claim claim =
        dsl.transactionResult(
            tx ->
                passes
                    .direct(tx.dsl())
                    .claimByIds(new ClaimByIds(ids, clock.instant(), settings.claimDuration())));
    if (claim.isEmpty()) {
      events.passFinished(PassKind.DIRECT, started);
      return;
    }
    SendOutcome outcome = sender.send(claim);
    events.emitAll(
        dsl.transactionResult(
            tx ->
                outcomes.complete(
                    passes.direct(tx.dsl()), claim, outcome, DeliveryComponent.DIRECT)));
    events.passFinished(PassKind.DIRECT, started);
  }
}
