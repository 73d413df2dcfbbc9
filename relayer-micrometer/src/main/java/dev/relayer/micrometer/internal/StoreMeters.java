package dev.relayer.micrometer.internal;

import static dev.relayer.micrometer.MeterNames.ENQUEUE;
import static dev.relayer.micrometer.MeterNames.ENQUEUED;
import static dev.relayer.micrometer.MeterNames.INBOX_DUPLICATES;

import dev.relayer.store.InboxOutcome;
import dev.relayer.store.StoreEventListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The meters fed by the store's events: the enqueue timer and counter, inbox duplicates. */
public final class StoreMeters implements StoreEventListener {

  private final Meters meters;
  private final TagValues consumers;
  private final Timer enqueue;
  private final Counter enqueued;
  private final Map<String, Counter> duplicates = new ConcurrentHashMap<>();

  public StoreMeters(Meters meters, TagValues consumers) {
    this.meters = meters;
    this.consumers = consumers;
    this.enqueue =
        meters.register(
            Timer.builder(ENQUEUE)
                .description("One enqueue call, in the application's transaction")
                .tags(meters.tags())
                .publishPercentileHistogram()
                .maximumExpectedValue(Duration.ofSeconds(10)));
    this.enqueued =
        meters.register(
            Counter.builder(ENQUEUED)
                .description("Messages written to the outbox by enqueue")
                .tags(meters.tags()));
  }

  @Override
  public void enqueued(int messages, Duration duration) {
    enqueue.record(duration);
    enqueued.increment(messages);
  }

  @Override
  public void inboxRecorded(String consumer, InboxOutcome outcome) {
    if (outcome != InboxOutcome.DUPLICATE) {
      return;
    }
    duplicates
        .computeIfAbsent(
            consumers.of(consumer),
            c ->
                meters.register(
                    Counter.builder(INBOX_DUPLICATES)
                        .description("Messages the inbox reported as already processed")
                        .tags(meters.tags("consumer", c))))
        .increment();
  }
}
