package dev.relayer.dispatch;

import dev.relayer.dispatch.internal.OptionChecks;
import dev.relayer.dispatch.internal.Sweeper;
import dev.relayer.store.Backlog;
import dev.relayer.store.RelayerStore;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import org.jooq.DSLContext;

/**
 * Backlog health for readiness probes and dashboards: below {@code degradedAt} eligible rows the
 * store is healthy, from {@code degradedAt} degraded, from {@code unhealthyAt} unhealthy. With
 * thresholds 10 and 20, counts 9, 10, 19 and 20 give healthy, degraded, degraded, unhealthy.
 */
public final class RelayerHealth {

  private final RelayerStore store;
  private final long degradedAt;
  private final long unhealthyAt;
  private final Clock clock;

  /**
   * @param degradedAt eligible rows from which the store is degraded; ≥ 1 (suggested: what your
   *     dispatchers send in about a minute)
   * @param unhealthyAt eligible rows from which it is unhealthy; ≥ degradedAt
   */
  public RelayerHealth(RelayerStore store, long degradedAt, long unhealthyAt, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    new OptionChecks("health")
        .between("degradedAt", degradedAt, 1, Long.MAX_VALUE)
        .between("unhealthyAt", unhealthyAt, 1, Long.MAX_VALUE)
        .rule(unhealthyAt >= degradedAt, "unhealthyAt must not be below degradedAt")
        .throwIfAny();
    this.degradedAt = degradedAt;
    this.unhealthyAt = unhealthyAt;
  }

  /** The status of an eligible backlog of {@code eligible} rows. */
  public HealthStatus evaluate(long eligible) {
    if (eligible >= unhealthyAt) {
      return HealthStatus.UNHEALTHY;
    }
    return eligible >= degradedAt ? HealthStatus.DEGRADED : HealthStatus.HEALTHY;
  }

  /** Checks the backlog now (by the clock), in the given context. */
  public HealthReport check(DSLContext dsl) {
    return check(dsl, clock.instant());
  }

  /** Checks the backlog at {@code now}. */
  public HealthReport check(DSLContext dsl, Instant now) {
    Backlog backlog = store.backlog(dsl, now);
    return new HealthReport(
        evaluate(backlog.eligible()),
        now,
        backlog.eligible(),
        backlog.oldestEligibleAge(),
        store.parkedKeyCount(dsl),
        store.deadCount(dsl),
        store.lease(dsl, Sweeper.LEASE));
  }
}
