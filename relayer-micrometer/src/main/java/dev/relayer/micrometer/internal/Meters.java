package dev.relayer.micrometer.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The registry, the {@code store} tag every meter carries, and the meters registered so far, which
 * {@link #removeAll()} takes out of the registry again.
 */
public final class Meters {

  private final MeterRegistry registry;
  private final Tags storeTags;
  private final List<Meter> registered = new CopyOnWriteArrayList<>();

  public Meters(MeterRegistry registry, String store) {
    this.registry = registry;
    this.storeTags = Tags.of("store", store);
  }

  /** The {@code store} tag, then {@code keyValues} (key, value, key, value…). */
  public Tags tags(String... keyValues) {
    return storeTags.and(keyValues);
  }

  /** The registry's wall clock, in milliseconds since the epoch. */
  public long wallTimeMillis() {
    return registry.config().clock().wallTime();
  }

  public Counter register(Counter.Builder builder) {
    return remember(builder.register(registry));
  }

  public Timer register(Timer.Builder builder) {
    return remember(builder.register(registry));
  }

  public DistributionSummary register(DistributionSummary.Builder builder) {
    return remember(builder.register(registry));
  }

  public <T> Gauge register(Gauge.Builder<T> builder) {
    return remember(builder.register(registry));
  }

  private <M extends Meter> M remember(M meter) {
    registered.add(meter);
    return meter;
  }

  /** Removes every meter registered through this from the registry. */
  public void removeAll() {
    for (Meter meter : registered) {
      registry.remove(meter);
    }
    registered.clear();
  }
}
