package dev.relayer.dispatch;

import dev.relayer.dispatch.internal.Durations;
import dev.relayer.dispatch.internal.OptionChecks;
import dev.relayer.dispatch.internal.TransportWatch;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.health.HealthQuery;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.OutboxHealth;
import dev.relayer.store.ops.ParkedKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Health for readiness probes and dashboards. The status is the worst verdict of six rules, each
 * with inclusive thresholds:
 *
 * <ol>
 *   <li><b>eligible backlog</b>: below {@code degradedAt} eligible rows healthy, from {@code
 *       degradedAt} degraded, from {@code unhealthyAt} unhealthy. With thresholds 10 and 20, counts
 *       9, 10, 19 and 20 give healthy, degraded, degraded, unhealthy;
 *   <li><b>oldest eligible age</b> (since the row became due): below {@code ageDegradedAt} healthy,
 *       from it degraded, from {@code ageUnhealthyAt} unhealthy. With 1 min and 5 min, ages 59.999
 *       s, 60 s, 299.999 s and 300 s give healthy, degraded, degraded, unhealthy;
 *   <li><b>failing rows</b>: due pending rows that failed at least once and were not sent since —
 *       waiting out their retry hold, due again, or claimed for another try ({@link
 *       HealthReport#failing()}). Below {@code failingDegradedAt} (default 100) healthy, from it
 *       degraded, from {@code failingUnhealthyAt} (default 1000) unhealthy;
 *   <li><b>oldest failing age</b>: how long the oldest failing row has been due, which bounds how
 *       long it has had nothing but failures. Below {@code failingAgeDegradedAt} (default 1 min)
 *       healthy, from it degraded, from {@code failingAgeUnhealthyAt} (default 15 min) unhealthy.
 *       This rule reads the database only, so it holds whether or not this process sent recently,
 *       whether or not the check was given a dispatcher, and however long the rows' backoff is: a
 *       row waiting out its retry keeps its failure ({@code last_error}) until it is sent, dead or
 *       parked. With the default options a single message the broker keeps refusing makes the
 *       status degraded after a minute and goes dead (about 4–9 min of backoff) before it would
 *       make it unhealthy; an outage of 15 min makes it unhealthy;
 *   <li><b>a failing transport</b>: when the check was given a dispatcher, any transport whose
 *       sends in this process all failed in the last minute (at least one failed, none succeeded),
 *       or whose current run of failures still holds rows for a retry that has not come yet (until
 *       30 s after the latest hold ends), makes the status at least degraded ({@link
 *       TransportSends#failing()}). So the rule is remembered across the rows' backoff, however
 *       long, until a send succeeds. A transport that had one success among its failures does not
 *       fire it;
 *   <li><b>parked keys</b>: any parked ordering key makes the status at least degraded: its rows
 *       wait for an operator.
 * </ol>
 *
 * Each rule that fired is named in {@link HealthReport#reasons()}. When keys are parked, the first
 * reason names the {@value #PARKED_NAMED} longest-parked keys (lane, how long parked, head id, the
 * start of its error) and how many more there are — one more statement, read only then.
 *
 * <p>The outbox read visits at most {@code rowLimit} due pending rows, the oldest first, so once
 * the backlog passes the limit a check costs no more as it grows. Rows scheduled for later are
 * passed over on the way (they add to the read's cost, never to its counts, and never hide a due
 * row behind them), and so are the index entries of rows delivered since the last read that no
 * vacuum has removed yet: after a burst of direct dispatch, about 3 – 4 µs of server CPU for each,
 * paid by the first read that passes it. Where the maintenance worker runs, its sweeper's reads of
 * the same index usually pass them first (the store's {@code HealthReadPlanIT}; {@code
 * docs/benchmarks.md}, <i>The health read on a draining outbox</i>). Below the limit every figure
 * is exact. When the read {@linkplain HealthReport#rowLimitReached() stops at the limit}, the
 * counts are of the rows it visited, and the eligible-backlog rule judges the backlog as at least
 * {@code rowLimit} rows, which is never below {@code unhealthyAt}: so at least that many due rows
 * make the status unhealthy, even if some of those it visited are in flight. Raise {@code rowLimit}
 * for exact counts of a larger backlog, at a cost that grows with it.
 *
 * <p>The check is two statements on Relayer's tables — one over the outbox (with the parked heads
 * and the dead table's counts as subqueries) and one over the leases — and four on PostgreSQL's
 * statistics views: dead tuples of Relayer's tables ({@code pg_stat_user_tables}) and what holds
 * the xmin horizon ({@code pg_stat_activity}, {@code pg_replication_slots}, {@code
 * pg_prepared_xacts}). Dead tuples and the horizon are reported, not judged: no rule reads them,
 * because what is too many depends on the table's size and traffic.
 *
 * <pre>{@code
 * RelayerHealth health =
 *     RelayerHealth.builder(store).eligibleThresholds(1_000, 10_000).dispatcher(dispatcher).build();
 * HealthReport report = health.check(dsl);
 * }</pre>
 */
public final class RelayerHealth {

  /** The window of {@link HealthReport#deadRowsLastHour()}. */
  public static final Duration DEAD_WINDOW = Duration.ofHours(1);

  /** How many of the longest-parked keys a reason names. */
  public static final int PARKED_NAMED = 3;

  /** Characters of a parked head's error a reason keeps. */
  private static final int PARKED_ERROR_CHARS = 80;

  private final HealthReads reads;
  private final long degradedAt;
  private final long unhealthyAt;
  private final Duration ageDegradedAt;
  private final Duration ageUnhealthyAt;
  private final long failingDegradedAt;
  private final long failingUnhealthyAt;
  private final Duration failingAgeDegradedAt;
  private final Duration failingAgeUnhealthyAt;
  private final Duration recoveryDelay;
  private final long rowLimit;
  private final @Nullable TransportWatch sends;
  private final Clock clock;

  /**
   * Health with count thresholds and the default age thresholds (1 min, 5 min) and recovery delay
   * (30 s), without per-transport send counts; see {@link #builder} for the rest.
   *
   * @param degradedAt eligible rows from which the store is degraded; ≥ 1 (suggested: what your
   *     dispatchers send in about a minute)
   * @param unhealthyAt eligible rows from which it is unhealthy; ≥ degradedAt
   */
  public RelayerHealth(RelayerStore store, long degradedAt, long unhealthyAt, Clock clock) {
    this(builder(store).eligibleThresholds(degradedAt, unhealthyAt).clock(clock).checked());
  }

  private RelayerHealth(Builder builder) {
    this.reads = HealthReads.of(builder.store);
    this.degradedAt = builder.degradedAt;
    this.unhealthyAt = builder.unhealthyAt;
    this.ageDegradedAt = builder.ageDegradedAt;
    this.ageUnhealthyAt = builder.ageUnhealthyAt;
    this.failingDegradedAt = builder.failingDegradedAt;
    this.failingUnhealthyAt = builder.failingUnhealthyAt;
    this.failingAgeDegradedAt = builder.failingAgeDegradedAt;
    this.failingAgeUnhealthyAt = builder.failingAgeUnhealthyAt;
    this.recoveryDelay = builder.recoveryDelay;
    this.rowLimit = builder.effectiveRowLimit();
    this.sends = builder.dispatcher == null ? null : builder.dispatcher.delivery().sender().sends();
    this.clock = builder.clock;
  }

  /** A builder over {@code store}; every option has a default. */
  public static Builder builder(RelayerStore store) {
    return new Builder(store);
  }

  /** The most due pending rows a check reads (see the class description). */
  public long rowLimit() {
    return rowLimit;
  }

  /** The verdict of the eligible-backlog rule alone for {@code eligible} rows. */
  public HealthStatus evaluate(long eligible) {
    if (eligible >= unhealthyAt) {
      return HealthStatus.UNHEALTHY;
    }
    return eligible >= degradedAt ? HealthStatus.DEGRADED : HealthStatus.HEALTHY;
  }

  /** The verdict of the oldest-eligible-age rule alone; healthy when nothing is eligible. */
  public HealthStatus evaluateAge(Optional<Duration> oldestEligibleAge) {
    if (oldestEligibleAge.isEmpty()) {
      return HealthStatus.HEALTHY;
    }
    Duration age = oldestEligibleAge.get();
    if (age.compareTo(ageUnhealthyAt) >= 0) {
      return HealthStatus.UNHEALTHY;
    }
    return age.compareTo(ageDegradedAt) >= 0 ? HealthStatus.DEGRADED : HealthStatus.HEALTHY;
  }

  /** The verdict of the failing-rows rule alone for {@code failing} rows. */
  public HealthStatus evaluateFailing(long failing) {
    if (failing >= failingUnhealthyAt) {
      return HealthStatus.UNHEALTHY;
    }
    return failing >= failingDegradedAt ? HealthStatus.DEGRADED : HealthStatus.HEALTHY;
  }

  /** The verdict of the oldest-failing-age rule alone; healthy when no row is failing. */
  public HealthStatus evaluateFailingAge(Optional<Duration> oldestFailingAge) {
    if (oldestFailingAge.isEmpty()) {
      return HealthStatus.HEALTHY;
    }
    Duration age = oldestFailingAge.get();
    if (age.compareTo(failingAgeUnhealthyAt) >= 0) {
      return HealthStatus.UNHEALTHY;
    }
    return age.compareTo(failingAgeDegradedAt) >= 0 ? HealthStatus.DEGRADED : HealthStatus.HEALTHY;
  }

  /** Checks now (by the clock), in the given context. */
  public HealthReport check(DSLContext dsl) {
    return check(dsl, clock.instant());
  }

  /** Checks at {@code now}. The per-transport counts are always of the last minute by the clock. */
  public HealthReport check(DSLContext dsl, Instant now) {
    OutboxHealth outbox =
        reads.health(dsl, new HealthQuery(now, recoveryDelay, DEAD_WINDOW, rowLimit));
    Map<String, TransportSends> transports = sends == null ? Map.of() : sends.lastMinute();
    List<String> reasons = new ArrayList<>();
    long eligible = outbox.backlog().eligible();
    HealthStatus byCount = evaluate(outbox.rowLimitReached() ? rowLimit : eligible);
    if (outbox.rowLimitReached()) {
      reasons.add(
          "the read stopped at rowLimit="
              + rowLimit
              + " due rows (eligible="
              + eligible
              + " among them), at or above unhealthyAt="
              + unhealthyAt);
    } else if (byCount != HealthStatus.HEALTHY) {
      reasons.add(
          "eligible="
              + eligible
              + " is at or above "
              + (byCount == HealthStatus.UNHEALTHY
                  ? "unhealthyAt=" + unhealthyAt
                  : "degradedAt=" + degradedAt));
    }
    Optional<Duration> age = outbox.backlog().oldestEligibleAge();
    HealthStatus byAge = evaluateAge(age);
    if (byAge != HealthStatus.HEALTHY) {
      reasons.add(
          "oldestEligibleAge="
              + Durations.format(age.orElseThrow())
              + " is at or above "
              + (byAge == HealthStatus.UNHEALTHY
                  ? "ageUnhealthyAt=" + Durations.format(ageUnhealthyAt)
                  : "ageDegradedAt=" + Durations.format(ageDegradedAt)));
    }
    HealthStatus byFailing = evaluateFailing(outbox.failing());
    if (byFailing != HealthStatus.HEALTHY) {
      reasons.add(
          "failing="
              + outbox.failing()
              + " rows have had only failures, at or above "
              + (byFailing == HealthStatus.UNHEALTHY
                  ? "failingUnhealthyAt=" + failingUnhealthyAt
                  : "failingDegradedAt=" + failingDegradedAt));
    }
    Optional<Duration> failingAge = outbox.oldestFailingAge();
    HealthStatus byFailingAge = evaluateFailingAge(failingAge);
    if (byFailingAge != HealthStatus.HEALTHY) {
      reasons.add(
          "oldestFailingAge="
              + Durations.format(failingAge.orElseThrow())
              + " (a row has had only failures since it became due) is at or above "
              + (byFailingAge == HealthStatus.UNHEALTHY
                  ? "failingAgeUnhealthyAt=" + Durations.format(failingAgeUnhealthyAt)
                  : "failingAgeDegradedAt=" + Durations.format(failingAgeDegradedAt)));
    }
    HealthStatus bySends = HealthStatus.HEALTHY;
    for (TransportSends t : transports.values()) {
      if (t.failsEverySend()) {
        bySends = HealthStatus.DEGRADED;
        reasons.add(
            "transport="
                + t.transport()
                + " failed every send in the last minute (failed="
                + t.failed()
                + t.lastError().map(e -> ", last error: " + e).orElse("")
                + ")");
      } else if (t.failing()) {
        bySends = HealthStatus.DEGRADED;
        reasons.add(
            "transport="
                + t.transport()
                + " has failed every send since "
                + t.failingSince().map(Instant::toString).orElse("?")
                + " and its failed rows wait out their retries");
      }
    }
    HealthStatus byParked = outbox.parkedKeys() > 0 ? HealthStatus.DEGRADED : HealthStatus.HEALTHY;
    HealthStatus status =
        worst(
            worst(worst(byCount, byAge), worst(byFailing, byFailingAge)), worst(bySends, byParked));
    if (outbox.parkedKeys() > 0) {
      String parked = parkedKeys(dsl, outbox.parkedKeys(), now);
      if (reasons.isEmpty()) {
        reasons.add(parked);
      } else {
        reasons.set(0, reasons.get(0) + "; " + parked);
      }
    }
    return new HealthReport(
        status,
        reasons,
        now,
        eligible,
        age,
        outbox.oldestPendingAge(),
        outbox.retrying(),
        outbox.oldestRetryingAge(),
        outbox.failing(),
        failingAge,
        outbox.neverHandedOff(),
        outbox.rowLimitReached(),
        outbox.parkedKeys(),
        outbox.oldestParkedAge(),
        outbox.deadRows(),
        outbox.recentDeadRows(),
        reads.leases(dsl),
        transports,
        reads.deadTuples(dsl),
        reads.xminHorizon(dsl));
  }

  /** The text naming the longest-parked keys: one more statement, only when keys are parked. */
  private String parkedKeys(DSLContext dsl, long parkedKeys, Instant now) {
    List<ParkedKey> longest = reads.longestParkedKeys(dsl, PARKED_NAMED);
    StringBuilder line =
        new StringBuilder("parkedKeys=")
            .append(parkedKeys)
            .append(" hold the rows behind their heads; longest parked: ");
    for (int i = 0; i < longest.size(); i++) {
      ParkedKey key = longest.get(i);
      String error = key.lastError();
      if (error.length() > PARKED_ERROR_CHARS) {
        int end = PARKED_ERROR_CHARS;
        if (Character.isHighSurrogate(error.charAt(end - 1))) {
          end--;
        }
        error = error.substring(0, end) + "…";
      }
      line.append(i == 0 ? "" : ", ")
          .append("key='")
          .append(key.orderingKey())
          .append("' (lane=")
          .append(key.lane())
          .append(", parked ")
          .append(Durations.format(max(Duration.ZERO, Duration.between(key.parkedAt(), now))))
          .append(" ago, head id=")
          .append(key.headId())
          .append(", error: ")
          .append(error)
          .append(")");
    }
    long more = parkedKeys - longest.size();
    if (more > 0) {
      line.append(" and ").append(more).append(" more");
    }
    return line.toString();
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static HealthStatus worst(HealthStatus a, HealthStatus b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** Builds {@link RelayerHealth}; unset options take their defaults. */
  public static final class Builder {
    private final RelayerStore store;
    private long degradedAt = 1_000;
    private long unhealthyAt = 10_000;
    private Duration ageDegradedAt = Duration.ofMinutes(1);
    private Duration ageUnhealthyAt = Duration.ofMinutes(5);
    private long failingDegradedAt = 100;
    private long failingUnhealthyAt = 1_000;
    private Duration failingAgeDegradedAt = Duration.ofMinutes(1);
    private Duration failingAgeUnhealthyAt = Duration.ofMinutes(15);
    private Duration recoveryDelay = Duration.ofSeconds(30);
    private @Nullable Long rowLimit;
    private @Nullable RelayerDispatcher dispatcher;
    private Clock clock = Clock.systemUTC();

    private Builder(RelayerStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Eligible rows from which the store is degraded (≥ 1, default 1000; suggested: what your
     * dispatchers send in about a minute) and unhealthy (≥ degradedAt, default 10000).
     */
    public Builder eligibleThresholds(long degradedAt, long unhealthyAt) {
      this.degradedAt = degradedAt;
      this.unhealthyAt = unhealthyAt;
      return this;
    }

    /**
     * Oldest eligible age from which the store is degraded (> 0, default 1 min) and unhealthy (≥
     * ageDegradedAt, default 5 min). Keep them above {@code recoveryDelay} plus {@code
     * sweepInterval}: a row whose hand-off was lost is that old before the sweeper takes it.
     */
    public Builder ageThresholds(Duration ageDegradedAt, Duration ageUnhealthyAt) {
      this.ageDegradedAt = ageDegradedAt;
      this.ageUnhealthyAt = ageUnhealthyAt;
      return this;
    }

    /**
     * Failing rows (due, pending, failed at least once and not sent since; see {@link
     * HealthReport#failing()}) from which the store is degraded (≥ 1, default 100) and unhealthy (≥
     * failingDegradedAt, default 1000).
     */
    public Builder failingThresholds(long failingDegradedAt, long failingUnhealthyAt) {
      this.failingDegradedAt = failingDegradedAt;
      this.failingUnhealthyAt = failingUnhealthyAt;
      return this;
    }

    /**
     * Oldest failing age (how long the oldest failing row has been due, so at least how long it has
     * had only failures) from which the store is degraded (> 0, default 1 min) and unhealthy (≥
     * failingAgeDegradedAt, default 15 min). Keep the unhealthy threshold above the time your
     * {@code maxAttempts} and backoff give a single poison message, or one such message makes the
     * store unhealthy before it goes dead (with the defaults, at most about 9 min).
     */
    public Builder failingAgeThresholds(
        Duration failingAgeDegradedAt, Duration failingAgeUnhealthyAt) {
      this.failingAgeDegradedAt = failingAgeDegradedAt;
      this.failingAgeUnhealthyAt = failingAgeUnhealthyAt;
      return this;
    }

    /**
     * The maintenance {@code recoveryDelay} (≥ 0, default 30 s): rows older than this that no one
     * claimed count as {@linkplain HealthReport#neverHandedOff() never handed off}.
     */
    public Builder recoveryDelay(Duration recoveryDelay) {
      this.recoveryDelay = recoveryDelay;
      return this;
    }

    /**
     * The most due pending rows a check reads (≥ unhealthyAt; default the larger of {@value
     * HealthQuery#DEFAULT_ROW_LIMIT} and unhealthyAt). A check's cost grows with it; see the class
     * description for what is reported once a read stops at it.
     */
    public Builder rowLimit(long rowLimit) {
      this.rowLimit = rowLimit;
      return this;
    }

    private long effectiveRowLimit() {
      return rowLimit != null ? rowLimit : Math.max(HealthQuery.DEFAULT_ROW_LIMIT, unhealthyAt);
    }

    /**
     * The dispatcher whose sends (direct, sweeper and lanes of this process) the report counts per
     * transport and the failing-transport rule reads; without one, neither applies.
     */
    public Builder dispatcher(RelayerDispatcher dispatcher) {
      this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
      return this;
    }

    /** The UTC clock {@link #check(DSLContext)} reads; default the system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Validates every option at once; throws naming each offending option. */
    public RelayerHealth build() {
      return new RelayerHealth(checked());
    }

    private Builder checked() {
      OptionChecks checks =
          new OptionChecks("health")
              .between("degradedAt", degradedAt, 1, Long.MAX_VALUE)
              .between("unhealthyAt", unhealthyAt, 1, Long.MAX_VALUE)
              .rule(unhealthyAt >= degradedAt, "unhealthyAt must not be below degradedAt")
              .positive("ageDegradedAt", ageDegradedAt)
              .positive("ageUnhealthyAt", ageUnhealthyAt)
              .between("failingDegradedAt", failingDegradedAt, 1, Long.MAX_VALUE)
              .between("failingUnhealthyAt", failingUnhealthyAt, 1, Long.MAX_VALUE)
              .rule(
                  failingUnhealthyAt >= failingDegradedAt,
                  "failingUnhealthyAt must not be below failingDegradedAt")
              .positive("failingAgeDegradedAt", failingAgeDegradedAt)
              .positive("failingAgeUnhealthyAt", failingAgeUnhealthyAt)
              .notNegative("recoveryDelay", recoveryDelay);
      if (rowLimit != null) {
        checks.rule(
            rowLimit >= unhealthyAt,
            "rowLimit="
                + rowLimit
                + " must not be below unhealthyAt="
                + unhealthyAt
                + ": the count rule judges the rows the read visits");
      }
      if (ageDegradedAt != null && ageUnhealthyAt != null) {
        checks.rule(
            ageUnhealthyAt.compareTo(ageDegradedAt) >= 0,
            "ageUnhealthyAt must not be below ageDegradedAt");
      }
      if (failingAgeDegradedAt != null && failingAgeUnhealthyAt != null) {
        checks.rule(
            failingAgeUnhealthyAt.compareTo(failingAgeDegradedAt) >= 0,
            "failingAgeUnhealthyAt must not be below failingAgeDegradedAt");
      }
      checks.throwIfAny();
      return this;
    }
  }
}
