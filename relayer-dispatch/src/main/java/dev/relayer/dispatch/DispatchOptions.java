package dev.relayer.dispatch;

import dev.relayer.dispatch.internal.Durations;
import dev.relayer.dispatch.internal.OptionChecks;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Options of {@link RelayerDispatcher}: direct dispatch, sends, retries.
 *
 * @param claimDuration how long a direct-dispatch claim holds rows; > 0, default 30 s. Must exceed
 *     {@code sendTimeout} plus the database round trips, or another claimer may send the rows again
 * @param sendTimeout how long one transport call may take; > 0 and at most claimDuration − 1 s
 *     ({@link #ROUND_TRIPS}), default 10 s
 * @param maxAttempts claims a row may use before it goes to the dead table (an ordered head is
 *     parked instead); 1–1000, default 10. A claim that expires without an answer counts too
 * @param backoffInitial delay before the first retry; > 0, default 1 s
 * @param backoffMax cap of the exponential backoff; ≥ backoffInitial, default 5 min. Each delay is
 *     drawn between half and all of {@code min(backoffMax, backoffInitial · 2^(attempts-1))}
 * @param queueCapacity ids waiting for direct dispatch; 1–1,000,000, default 10,000. When full,
 *     hand-offs are dropped (never blocking the committing thread) and the sweeper delivers them
 * @param workers direct-dispatch worker threads; 1–64, default 2
 * @param claimBatchSize most ids one direct-dispatch claim takes; 1–10,000, default 500
 * @param shutdownTimeout how long {@code close()} waits for in-flight sends; ≥ 0, default 10 s
 * @param laneNotifyInterval shortest gap between two lane notifications this dispatcher sends to
 *     other instances after commits that wrote ordered rows ({@code
 *     StoreOptions.laneNotifications}); 1 ms – 1 s, default 5 ms. The first commit after a quiet
 *     gap is announced at once; commits in the next interval share one notification. Longer means
 *     fewer notifying transactions under load and later wake-ups in other instances
 */
public record DispatchOptions(
    Duration claimDuration,
    Duration sendTimeout,
    int maxAttempts,
    Duration backoffInitial,
    Duration backoffMax,
    int queueCapacity,
    int workers,
    int claimBatchSize,
    Duration shutdownTimeout,
    Duration laneNotifyInterval) {

  /**
   * Room a claim leaves beyond {@code sendTimeout}, for the claim's and the completion's database
   * round trips: {@code claimDuration} must be at least {@code sendTimeout} plus this (1 s).
   */
  public static final Duration ROUND_TRIPS = Duration.ofSeconds(1);

  public DispatchOptions {
    OptionChecks checks = new OptionChecks("dispatch");
    checks
        .positive("claimDuration", claimDuration)
        .positive("sendTimeout", sendTimeout)
        .between("maxAttempts", maxAttempts, 1, 1000)
        .positive("backoffInitial", backoffInitial)
        .positive("backoffMax", backoffMax)
        .between("queueCapacity", queueCapacity, 1, 1_000_000)
        .between("workers", workers, 1, 64)
        .between("claimBatchSize", claimBatchSize, 1, 10_000)
        .notNegative("shutdownTimeout", shutdownTimeout)
        .between(
            "laneNotifyInterval", laneNotifyInterval, Duration.ofMillis(1), Duration.ofSeconds(1));
    if (claimDuration != null && sendTimeout != null) {
      checks.rule(
          claimDuration.compareTo(sendTimeout.plus(ROUND_TRIPS)) >= 0,
          "sendTimeout ("
              + Durations.format(sendTimeout)
              + ") must be shorter than claimDuration ("
              + Durations.format(claimDuration)
              + ") by at least "
              + Durations.format(ROUND_TRIPS)
              + " for the database round trips (direct dispatch and the lanes claim for"
              + " claimDuration)");
    }
    if (backoffInitial != null && backoffMax != null) {
      checks.rule(
          backoffMax.compareTo(backoffInitial) >= 0,
          "backoffMax must not be shorter than backoffInitial");
    }
    checks.throwIfAny();
  }

  public static DispatchOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Binds options from strings named like the fields; unknown keys are rejected. */
  public static DispatchOptions fromMap(Map<String, String> values) {
    Builder builder = builder();
    Map<String, Consumer<String>> setters = new LinkedHashMap<>();
    setters.put("claimDuration", v -> builder.claimDuration(Durations.parse(v)));
    setters.put("sendTimeout", v -> builder.sendTimeout(Durations.parse(v)));
    setters.put("maxAttempts", v -> builder.maxAttempts(OptionChecks.parseInt(v)));
    setters.put("backoffInitial", v -> builder.backoffInitial(Durations.parse(v)));
    setters.put("backoffMax", v -> builder.backoffMax(Durations.parse(v)));
    setters.put("queueCapacity", v -> builder.queueCapacity(OptionChecks.parseInt(v)));
    setters.put("workers", v -> builder.workers(OptionChecks.parseInt(v)));
    setters.put("claimBatchSize", v -> builder.claimBatchSize(OptionChecks.parseInt(v)));
    setters.put("shutdownTimeout", v -> builder.shutdownTimeout(Durations.parse(v)));
    setters.put("laneNotifyInterval", v -> builder.laneNotifyInterval(Durations.parse(v)));
    OptionChecks.bind("dispatch", values, setters);
    return builder.build();
  }

  /** {@link #fromMap} over {@code properties}. */
  public static DispatchOptions fromProperties(Properties properties) {
    return fromMap(OptionChecks.toMap("dispatch", properties));
  }

  /** One line for the start-up log. */
  public String describe() {
    return "claimDuration="
        + Durations.format(claimDuration)
        + " sendTimeout="
        + Durations.format(sendTimeout)
        + " maxAttempts="
        + maxAttempts
        + " backoffInitial="
        + Durations.format(backoffInitial)
        + " backoffMax="
        + Durations.format(backoffMax)
        + " queueCapacity="
        + queueCapacity
        + " workers="
        + workers
        + " claimBatchSize="
        + claimBatchSize
        + " shutdownTimeout="
        + Durations.format(shutdownTimeout)
        + " laneNotifyInterval="
        + Durations.format(laneNotifyInterval);
  }

  /** Builds {@link DispatchOptions}; unset fields take their defaults. */
  public static final class Builder {
    private Duration claimDuration = Duration.ofSeconds(30);
    private Duration sendTimeout = Duration.ofSeconds(10);
    private int maxAttempts = 10;
    private Duration backoffInitial = Duration.ofSeconds(1);
    private Duration backoffMax = Duration.ofMinutes(5);
    private int queueCapacity = 10_000;
    private int workers = 2;
    private int claimBatchSize = 500;
    private Duration shutdownTimeout = Duration.ofSeconds(10);
    private Duration laneNotifyInterval = Duration.ofMillis(5);

    private Builder() {}

    public Builder claimDuration(Duration claimDuration) {
      this.claimDuration = claimDuration;
      return this;
    }

    public Builder sendTimeout(Duration sendTimeout) {
      this.sendTimeout = sendTimeout;
      return this;
    }

    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    public Builder backoffInitial(Duration backoffInitial) {
      this.backoffInitial = backoffInitial;
      return this;
    }

    public Builder backoffMax(Duration backoffMax) {
      this.backoffMax = backoffMax;
      return this;
    }

    public Builder queueCapacity(int queueCapacity) {
      this.queueCapacity = queueCapacity;
      return this;
    }

    public Builder workers(int workers) {
      this.workers = workers;
      return this;
    }

    public Builder claimBatchSize(int claimBatchSize) {
      this.claimBatchSize = claimBatchSize;
      return this;
    }

    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout = shutdownTimeout;
      return this;
    }

    public Builder laneNotifyInterval(Duration laneNotifyInterval) {
      this.laneNotifyInterval = laneNotifyInterval;
      return this;
    }

    /** Validates every option at once; throws naming each offending option. */
    public DispatchOptions build() {
      return new DispatchOptions(
          claimDuration,
          sendTimeout,
          maxAttempts,
          backoffInitial,
          backoffMax,
          queueCapacity,
          workers,
          claimBatchSize,
          shutdownTimeout,
          laneNotifyInterval);
    }
  }
}
