package dev.relayer.store;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;

/**
 * Claim the next rows of one or more ordered lanes, in one statement: for each key of the lanes
 * whose head (its lowest id among pending and parked rows) is pending, due and not under a live
 * claim, the head — and, on transports that keep a batch's order, up to {@code followers}
 * consecutive later rows of the same key that are due, unclaimed and bound for the same transport
 * and destination. Keys come oldest head first, at most {@code maxKeys} of them. A row is never
 * claimed unless every earlier row of its key is claimed by the same statement or gone.
 *
 * @param lanes the lanes, at least one, each 0 or more
 * @param maxKeys most keys to claim, at least 1
 * @param followers most rows to claim after each head, 0 or more; they are claimed only for the
 *     transports named in {@code batchingTransports}
 * @param batchingTransports names of the transports that preserve batch order; may be empty
 * @param now the claimer's clock reading
 * @param claimDuration how long the claim holds
 */
public record LaneClaim(
    Set<Integer> lanes,
    int maxKeys,
    int followers,
    Set<String> batchingTransports,
    Instant now,
    Duration claimDuration) {

  public LaneClaim {
    Objects.requireNonNull(lanes, "lanes");
    if (lanes.isEmpty()) {
      throw new InvalidInputException("lanes must name at least one lane");
    }
    for (Integer lane : lanes) {
      if (lane == null || lane < 0) {
        throw new InvalidInputException("lane must not be negative, was " + lane);
      }
    }
    lanes = Set.copyOf(lanes);
    if (maxKeys < 1) {
      throw new InvalidInputException("maxKeys must be at least 1, was " + maxKeys);
    }
    if (followers < 0) {
      throw new InvalidInputException("followers must not be negative, was " + followers);
    }
    batchingTransports =
        Set.copyOf(Objects.requireNonNull(batchingTransports, "batchingTransports"));
    batchingTransports.forEach(t -> StoreChecks.requireText("batchingTransports entry", t));
    StoreChecks.requireInstant("now", now);
    StoreChecks.requirePositive("claimDuration", claimDuration);
  }

  /** A claim of the one lane {@code lane}. */
  public LaneClaim(
      int lane,
      int maxKeys,
      int followers,
      Set<String> batchingTransports,
      Instant now,
      Duration claimDuration) {
    this(Collections.singleton(lane), maxKeys, followers, batchingTransports, now, claimDuration);
  }
}
