package dev.relayer.store.health;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.internal.StoreChecks;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link HealthReads#health} measures at.
 *
 * @param now the instant ages and eligibility are measured at (the JVM clock, as claims use)
 * @param recoveryDelay unordered rows written longer ago than this and never claimed count as never
 *     handed off
 * @param deadWindow dead rows with {@code failed_at} within this long before {@code now} count as
 *     recent
 * @param rowLimit the most due pending rows the read visits, oldest (lowest id) first; ≥ 1. Up to
 *     it every figure is exact; see {@link OutboxHealth#rowLimitReached()} for what is read beyond
 */
public record HealthQuery(Instant now, Duration recoveryDelay, Duration deadWindow, long rowLimit) {

  /**
   * The row limit health checks use unless told otherwise: a read of this many rows of a settled
   * table takes milliseconds.
   */
  public static final long DEFAULT_ROW_LIMIT = 10_000;

  public HealthQuery {
    Objects.requireNonNull(now, "now");
    if (recoveryDelay == null || recoveryDelay.isNegative()) {
      throw new InvalidInputException("recoveryDelay must not be negative, was " + recoveryDelay);
    }
    StoreChecks.requirePositive("deadWindow", deadWindow);
    if (rowLimit < 1) {
      throw new InvalidInputException("rowLimit must be at least 1, was " + rowLimit);
    }
  }
}
