package dev.relayer.store.pass;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.internal.StoreChecks;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;

/**
 * Claim the next rows of one or more ordered lanes, in one statement: for each key of the lanes
 * whose head (its lowest id among pending and parked rows) is pending, due and not under a live
 * claim, the head — and, on the transports {@code runTransports}, up to {@code followers}
 * consecutive later rows of the same key that are due, unclaimed and bound for the same transport
 * and destination (a run). The claim only takes a run; sending it in order is the caller's part: in
 * one batch on a transport that keeps a batch's order, row after row (each after the previous one
 * was accepted) on one that does not. Keys come oldest head first, at most {@code maxKeys} of them
 * and at most {@code maxKeysPerLane} of one lane. A row is never claimed unless every earlier row
 * of its key is claimed by the same statement or gone.
 *
 * <p>The claim costs about the rows it claims, not the lanes' backlogs: see the lane-key index of
 * schema version 3 and the statement's documentation in the store.
 *
 * @param lanes the lanes, at least one, each 0 or more
 * @param maxKeys most keys to claim, at least 1
 * @param followers most rows to claim after each head, 0 or more; they are claimed only for the
 *     transports named in {@code runTransports}
 * @param runTransports names of the transports whose keys may be claimed in runs (the dispatcher
 *     names every transport: it sends a run in one batch or in waves); may be empty
 * @param now the claimer's clock reading
 * @param claimDuration how long the claim holds
 * @param maxKeysPerLane most keys to claim in one lane, at least 1: a claim over several lanes
 *     reads the heads of each lane up to this many
 */
public record LaneClaim(
    Set<Integer> lanes,
    int maxKeys,
    int followers,
    Set<String> runTransports,
    Instant now,
    Duration claimDuration,
    int maxKeysPerLane) {

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
    runTransports = Set.copyOf(Objects.requireNonNull(runTransports, "runTransports"));
    runTransports.forEach(t -> StoreChecks.requireText("runTransports entry", t));
    StoreChecks.requireInstant("now", now);
    StoreChecks.requirePositive("claimDuration", claimDuration);
    if (maxKeysPerLane < 1) {
      throw new InvalidInputException("maxKeysPerLane must be at least 1, was " + maxKeysPerLane);
    }
  }

  /** A claim that takes up to {@code maxKeys} keys from any one of its lanes too. */
  public LaneClaim(
      Set<Integer> lanes,
      int maxKeys,
      int followers,
      Set<String> runTransports,
      Instant now,
      Duration claimDuration) {
    this(lanes, maxKeys, followers, runTransports, now, claimDuration, maxKeys);
  }

  /** A claim of the one lane {@code lane}. */
  public LaneClaim(
      int lane,
      int maxKeys,
      int followers,
      Set<String> runTransports,
      Instant now,
      Duration claimDuration) {
    this(Collections.singleton(lane), maxKeys, followers, runTransports, now, claimDuration);
  }
}
