package dev.relayer.dispatch;

import dev.relayer.dispatch.internal.Durations;
import dev.relayer.dispatch.internal.OptionChecks;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Options of {@link RelayerMaintenance}. Every instance sharing the tables must use the same values
 * (the lease holder's are the ones in force, and a takeover must not change behaviour).
 *
 * @param batchSize rows per sweep pass; 1–10000, default 100
 * @param recoveryDelay the sweeper leaves rows younger than this (by {@code created_at}) to direct
 *     dispatch; ≥ 0, default 30 s. Raise it if direct dispatch often takes longer. Rows scheduled
 *     after their {@code created_at} ({@code deliver_at}) do not wait for it: they are swept once
 *     due
 * @param sweepInterval wait after a sweep pass that did not claim and send a full page; > 0,
 *     default 5 s
 * @param fullSweepInterval how often a sweep traversal starts from id 0 instead of from the
 *     sweeper's floor (the id below which no unordered row is pending or can become pending); > 0,
 *     default 10 min. It bounds how late the sweeper finds a row written by a transaction that drew
 *     its id before it had a transaction id, or under an identity sequence given a cache
 * @param leaseDuration how long the sweeper lease lasts after each pass and the cleanup lease after
 *     each cleanup batch takes it; 1 s – 1 h, default 30 s. A crashed leader is replaced after at
 *     most this long
 * @param claimDuration how long a sweep claim holds a row; > 0, default 30 s; longer than a send
 *     plus the database round trips
 * @param cleanupInterval how often cleanup runs (after a sweep) once it has caught up; > 0, default
 *     1 min. A cleanup run that ends on its budget with rows left runs again after the next sweep
 *     pass instead
 * @param cleanupBatchSize rows per cleanup delete, each batch its own transaction; a run deletes
 *     batch after batch until one comes back short; 1–100000, default 5000
 * @param cleanupBudget how long one cleanup run may go on deleting before it lets the next sweep
 *     pass run; > 0, default 5 s
 * @param cleanupPauseFactor after each cleanup batch that another follows, cleanup waits for that
 *     batch's own time multiplied by this factor, so that it takes at most {@code 1 / (1 + factor)}
 *     of the time it runs and leaves the rest to the application; 0–100, default 0 (batches back to
 *     back). The pauses count towards {@code cleanupBudget}
 * @param deadRetention dead rows older than this (by {@code failed_at}) are deleted; default 30 d
 * @param inboxRetention inbox records older than this (by {@code processed_at}) are deleted;
 *     default 7 d. It bounds deduplication: a redelivery older than this is processed again
 * @param idempotencyKeyRetention idempotency keys older than this (by {@code created_at}, the
 *     commit of their first enqueue) are deleted; default 7 d. It bounds enqueue-side
 *     deduplication: {@code RelayerStore.enqueueOnce} with a key older than this writes the message
 *     again. Set it longer than the longest time a client may retry a request
 * @param shutdownTimeout how long {@code close()} waits for a running pass; ≥ 0, default 10 s
 */
public record MaintenanceOptions(
    int batchSize,
    Duration recoveryDelay,
    Duration sweepInterval,
    Duration fullSweepInterval,
    Duration leaseDuration,
    Duration claimDuration,
    Duration cleanupInterval,
    int cleanupBatchSize,
    Duration cleanupBudget,
    double cleanupPauseFactor,
    Retention deadRetention,
    Retention inboxRetention,
    Retention idempotencyKeyRetention,
    Duration shutdownTimeout) {

  public MaintenanceOptions {
    OptionChecks checks = new OptionChecks("maintenance");
    checks
        .between("batchSize", batchSize, 1, 10_000)
        .notNegative("recoveryDelay", recoveryDelay)
        .positive("sweepInterval", sweepInterval)
        .positive("fullSweepInterval", fullSweepInterval)
        .between("leaseDuration", leaseDuration, Duration.ofSeconds(1), Duration.ofHours(1))
        .positive("claimDuration", claimDuration)
        .positive("cleanupInterval", cleanupInterval)
        .between("cleanupBatchSize", cleanupBatchSize, 1, 100_000)
        .positive("cleanupBudget", cleanupBudget)
        .between("cleanupPauseFactor", cleanupPauseFactor, 0, 100)
        .notNegative("shutdownTimeout", shutdownTimeout);
    checkRetention(checks, "deadRetention", deadRetention);
    checkRetention(checks, "inboxRetention", inboxRetention);
    checkRetention(checks, "idempotencyKeyRetention", idempotencyKeyRetention);
    checks.throwIfAny();
  }

  private static void checkRetention(OptionChecks checks, String option, Retention retention) {
    if (retention == null) {
      checks.rule(false, option + " must be set");
    } else {
      retention.duration().ifPresent(d -> checks.positive(option, d));
    }
  }

  /** All defaults. */
  public static MaintenanceOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds options from strings named like the fields ({@code batchSize}, {@code sweepInterval},
   * ...). Durations take ISO-8601 ({@code PT30S}) or short forms ({@code 30s}, {@code 5m}, {@code
   * 7d}); retentions also take {@code infinite}. Unknown keys are rejected.
   */
  public static MaintenanceOptions fromMap(Map<String, String> values) {
    Builder builder = builder();
    Map<String, Consumer<String>> setters = new LinkedHashMap<>();
    setters.put("batchSize", v -> builder.batchSize(OptionChecks.parseInt(v)));
    setters.put("recoveryDelay", v -> builder.recoveryDelay(Durations.parse(v)));
    setters.put("sweepInterval", v -> builder.sweepInterval(Durations.parse(v)));
    setters.put("fullSweepInterval", v -> builder.fullSweepInterval(Durations.parse(v)));
    setters.put("leaseDuration", v -> builder.leaseDuration(Durations.parse(v)));
    setters.put("claimDuration", v -> builder.claimDuration(Durations.parse(v)));
    setters.put("cleanupInterval", v -> builder.cleanupInterval(Durations.parse(v)));
    setters.put("cleanupBatchSize", v -> builder.cleanupBatchSize(OptionChecks.parseInt(v)));
    setters.put("cleanupBudget", v -> builder.cleanupBudget(Durations.parse(v)));
    setters.put("cleanupPauseFactor", v -> builder.cleanupPauseFactor(OptionChecks.parseDouble(v)));
    setters.put("deadRetention", v -> builder.deadRetention(Retention.parse(v)));
    setters.put("inboxRetention", v -> builder.inboxRetention(Retention.parse(v)));
    setters.put(
        "idempotencyKeyRetention", v -> builder.idempotencyKeyRetention(Retention.parse(v)));
    setters.put("shutdownTimeout", v -> builder.shutdownTimeout(Durations.parse(v)));
    OptionChecks.bind("maintenance", values, setters);
    return builder.build();
  }

  /** {@link #fromMap} over {@code properties}. */
  public static MaintenanceOptions fromProperties(Properties properties) {
    return fromMap(OptionChecks.toMap("maintenance", properties));
  }

  /** One line for the start-up log. */
  public String describe() {
    return "batchSize="
        + batchSize
        + " recoveryDelay="
        + Durations.format(recoveryDelay)
        + " sweepInterval="
        + Durations.format(sweepInterval)
        + " fullSweepInterval="
        + Durations.format(fullSweepInterval)
        + " leaseDuration="
        + Durations.format(leaseDuration)
        + " claimDuration="
        + Durations.format(claimDuration)
        + " cleanupInterval="
        + Durations.format(cleanupInterval)
        + " cleanupBatchSize="
        + cleanupBatchSize
        + " cleanupBudget="
        + Durations.format(cleanupBudget)
        + " cleanupPauseFactor="
        + cleanupPauseFactor
        + " deadRetention="
        + deadRetention
        + " inboxRetention="
        + inboxRetention
        + " idempotencyKeyRetention="
        + idempotencyKeyRetention
        + " shutdownTimeout="
        + Durations.format(shutdownTimeout);
  }

  /** Builds {@link MaintenanceOptions}; unset fields take their defaults. */
  public static final class Builder {
    private int batchSize = 100;
    private Duration recoveryDelay = Duration.ofSeconds(30);
    private Duration sweepInterval = Duration.ofSeconds(5);
    private Duration fullSweepInterval = Duration.ofMinutes(10);
    private Duration leaseDuration = Duration.ofSeconds(30);
    private Duration claimDuration = Duration.ofSeconds(30);
    private Duration cleanupInterval = Duration.ofMinutes(1);
    private int cleanupBatchSize = 5000;
    private Duration cleanupBudget = Duration.ofSeconds(5);
    private double cleanupPauseFactor = 0;
    private Retention deadRetention = Retention.of(Duration.ofDays(30));
    private Retention inboxRetention = Retention.of(Duration.ofDays(7));
    private Retention idempotencyKeyRetention = Retention.of(Duration.ofDays(7));
    private Duration shutdownTimeout = Duration.ofSeconds(10);

    private Builder() {}

    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    public Builder recoveryDelay(Duration recoveryDelay) {
      this.recoveryDelay = recoveryDelay;
      return this;
    }

    public Builder sweepInterval(Duration sweepInterval) {
      this.sweepInterval = sweepInterval;
      return this;
    }

    public Builder fullSweepInterval(Duration fullSweepInterval) {
      this.fullSweepInterval = fullSweepInterval;
      return this;
    }

    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = leaseDuration;
      return this;
    }

    public Builder claimDuration(Duration claimDuration) {
      this.claimDuration = claimDuration;
      return this;
    }

    public Builder cleanupInterval(Duration cleanupInterval) {
      this.cleanupInterval = cleanupInterval;
      return this;
    }

    public Builder cleanupBatchSize(int cleanupBatchSize) {
      this.cleanupBatchSize = cleanupBatchSize;
      return this;
    }

    public Builder cleanupBudget(Duration cleanupBudget) {
      this.cleanupBudget = cleanupBudget;
      return this;
    }

    public Builder cleanupPauseFactor(double cleanupPauseFactor) {
      this.cleanupPauseFactor = cleanupPauseFactor;
      return this;
    }

    public Builder deadRetention(Retention deadRetention) {
      this.deadRetention = deadRetention;
      return this;
    }

    public Builder inboxRetention(Retention inboxRetention) {
      this.inboxRetention = inboxRetention;
      return this;
    }

    /** How long an idempotency key keeps a later enqueue with it a duplicate; default 7 d. */
    public Builder idempotencyKeyRetention(Retention idempotencyKeyRetention) {
      this.idempotencyKeyRetention = idempotencyKeyRetention;
      return this;
    }

    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout = shutdownTimeout;
      return this;
    }

    /** Validates every option at once; throws naming each offending option. */
    public MaintenanceOptions build() {
      return new MaintenanceOptions(
          batchSize,
          recoveryDelay,
          sweepInterval,
          fullSweepInterval,
          leaseDuration,
          claimDuration,
          cleanupInterval,
          cleanupBatchSize,
          cleanupBudget,
          cleanupPauseFactor,
          deadRetention,
          inboxRetention,
          idempotencyKeyRetention,
          shutdownTimeout);
    }
  }
}
