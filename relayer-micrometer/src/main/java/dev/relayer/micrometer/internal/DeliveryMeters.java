package dev.relayer.micrometer.internal;

import static dev.relayer.micrometer.MeterNames.CLEANUP_DELETED;
import static dev.relayer.micrometer.MeterNames.COMMIT_TO_SEND;
import static dev.relayer.micrometer.MeterNames.DEAD;
import static dev.relayer.micrometer.MeterNames.FAILED;
import static dev.relayer.micrometer.MeterNames.HANDOFFS_DROPPED;
import static dev.relayer.micrometer.MeterNames.PARKED;
import static dev.relayer.micrometer.MeterNames.PASS;
import static dev.relayer.micrometer.MeterNames.SEND;
import static dev.relayer.micrometer.MeterNames.SEND_BATCH_SIZE;
import static dev.relayer.micrometer.MeterNames.SENT;

import dev.relayer.dispatch.spi.DeadReason;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.FailureKind;
import dev.relayer.dispatch.spi.PassKind;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.dispatch.spi.SendBatch;
import dev.relayer.schema.SchemaNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The meters fed by the dispatcher's events: counters of sent, failed, dead and parked rows and of
 * dropped hand-offs, the send, pass and commit-to-send timers, the batch sizes and what cleanup
 * deleted. Meters with a transport (and, opted in, a destination) tag are registered on their first
 * event; the rest when this is created.
 */
public final class DeliveryMeters implements RelayerEventListener {

  private final Meters meters;
  private final TagValues transports;
  private final @Nullable TagValues destinations;
  private final Map<Key, Counter> counters = new ConcurrentHashMap<>();
  private final Map<Key, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, DistributionSummary> batchSizes = new ConcurrentHashMap<>();
  private final Map<PassKind, Timer> passes = new EnumMap<>(PassKind.class);
  private final Map<String, Counter> cleaned = new ConcurrentHashMap<>();
  private final Counter handoffsDropped;

  /** A meter's tag values besides the store; {@code ""} where the meter has no such tag. */
  private record Key(String name, String transport, String detail, String destination) {}

  /** The meters a sent row counts in, for its raw transport and destination. */
  private record SentMeters(
      String transport, String destination, Counter sent, Timer commitToSend) {}

  /** The last sent row's meters; a race between dispatch threads only costs a lookup. */
  private volatile @Nullable SentMeters lastSent;

  public DeliveryMeters(Meters meters, TagValues transports, @Nullable TagValues destinations) {
    this.meters = meters;
    this.transports = transports;
    this.destinations = destinations;
    for (PassKind kind : PassKind.values()) {
      passes.put(
          kind,
          meters.register(
              Timer.builder(PASS)
                  .description("One pass of direct dispatch, the sweeper, a lane or cleanup")
                  .tags(meters.tags("kind", kind.tag()))
                  .publishPercentileHistogram()
                  .maximumExpectedValue(Duration.ofMinutes(5))));
    }
    for (String table : new String[] {SchemaNames.OUTBOX_DEAD, SchemaNames.INBOX}) {
      cleaned.put(
          table,
          meters.register(
              Counter.builder(CLEANUP_DELETED)
                  .description("Rows cleanup deleted past their retention")
                  .tags(meters.tags("table", table))));
    }
    handoffsDropped =
        meters.register(
            Counter.builder(HANDOFFS_DROPPED)
                .description("Ids handed over after commit and dropped: the queue was full")
                .tags(meters.tags()));
  }

  @Override
  public void sent(DeliveryEvent event) {
    SentMeters row = sentMeters(event);
    row.sent().increment();
    long waited = meters.wallTimeMillis() - event.dueAt().toEpochMilli();
    row.commitToSend().record(Math.max(0, waited), TimeUnit.MILLISECONDS);
  }

  /**
   * The meters of a sent row: those of the row before when it had the same transport (and, where
   * destinations are tagged, destination), as every row of a batch has; else looked up by tags.
   */
  private SentMeters sentMeters(DeliveryEvent event) {
    SentMeters last = lastSent;
    if (last != null
        && last.transport().equals(event.transport())
        && (destinations == null || last.destination().equals(event.destination()))) {
      return last;
    }
    String transport = transports.of(event.transport());
    SentMeters found =
        new SentMeters(
            event.transport(),
            event.destination(),
            counter(SENT, transport, "", event.destination(), this::sentCounter),
            timer(COMMIT_TO_SEND, transport, "", "", this::commitToSendTimer));
    lastSent = found;
    return found;
  }

  @Override
  public void sendFailed(DeliveryEvent event, FailureKind kind, String error) {
    counter(
            FAILED,
            transports.of(event.transport()),
            kind.tag(),
            event.destination(),
            this::failedCounter)
        .increment();
  }

  @Override
  public void dead(DeliveryEvent event, DeadReason reason, String error) {
    counter(
            DEAD,
            transports.of(event.transport()),
            reason.tag(),
            event.destination(),
            this::deadCounter)
        .increment();
  }

  @Override
  public void parked(DeliveryEvent event, String error) {
    counter(PARKED, transports.of(event.transport()), "", event.destination(), this::parkedCounter)
        .increment();
  }

  @Override
  public void handoffDropped(int ids) {
    handoffsDropped.increment(ids);
  }

  @Override
  public void batchSent(SendBatch batch) {
    String transport = transports.of(batch.transport());
    timer(SEND, transport, batch.outcome().tag(), batch.destination(), this::sendTimer)
        .record(batch.duration());
    batchSizes
        .computeIfAbsent(
            transport,
            t ->
                meters.register(
                    DistributionSummary.builder(SEND_BATCH_SIZE)
                        .description("Rows per transport call")
                        .tags(meters.tags("transport", t))))
        .record(batch.size());
  }

  @Override
  public void passFinished(PassKind kind, Duration duration) {
    Timer timer = passes.get(kind);
    if (timer != null) {
      timer.record(duration);
    }
  }

  @Override
  public void cleanedUp(String table, long rows) {
    Counter counter = cleaned.get(table);
    if (counter != null) {
      counter.increment((double) rows);
    }
  }

  private Counter counter(
      String name,
      String transport,
      String detail,
      String destination,
      Function<Key, Counter> create) {
    String tag = destinations == null ? "" : destinations.of(destination);
    return counters.computeIfAbsent(new Key(name, transport, detail, tag), create);
  }

  private Timer timer(
      String name,
      String transport,
      String detail,
      String destination,
      Function<Key, Timer> create) {
    String tag = destinations == null || destination.isEmpty() ? "" : destinations.of(destination);
    return timers.computeIfAbsent(new Key(name, transport, detail, tag), create);
  }

  /** The store's, the transport's and (opted in) the destination's tags, then {@code more}. */
  private Tags tags(Key key, String... more) {
    Tags tags = meters.tags("transport", key.transport()).and(more);
    return destinations == null || key.destination().isEmpty()
        ? tags
        : tags.and("destination", key.destination());
  }

  private Counter sentCounter(Key key) {
    return meters.register(
        Counter.builder(SENT).description("Rows the broker accepted").tags(tags(key)));
  }

  private Counter failedCounter(Key key) {
    return meters.register(
        Counter.builder(FAILED)
            .description("Failed sends of rows, by how the failure is classified")
            .tags(tags(key, "reason", key.detail())));
  }

  private Counter deadCounter(Key key) {
    return meters.register(
        Counter.builder(DEAD)
            .description("Rows moved to the dead table")
            .tags(tags(key, "reason", key.detail())));
  }

  private Counter parkedCounter(Key key) {
    return meters.register(
        Counter.builder(PARKED)
            .description("Ordered heads parked for an operator")
            .tags(tags(key)));
  }

  private Timer sendTimer(Key key) {
    return meters.register(
        Timer.builder(SEND)
            .description("One transport call: a native batch to one destination")
            .tags(tags(key, "outcome", key.detail()))
            .publishPercentileHistogram()
            .maximumExpectedValue(Duration.ofMinutes(1)));
  }

  private Timer commitToSendTimer(Key key) {
    return meters.register(
        Timer.builder(COMMIT_TO_SEND)
            .description(
                "From a row becoming due (created_at, or deliver_at when later) to its send being"
                    + " recorded")
            .tags(meters.tags("transport", key.transport()))
            .publishPercentileHistogram()
            .maximumExpectedValue(Duration.ofMinutes(10)));
  }
}
