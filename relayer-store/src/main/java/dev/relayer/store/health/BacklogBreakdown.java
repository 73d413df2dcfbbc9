package dev.relayer.store.health;

import java.time.Instant;
import java.util.List;

/**
 * The outbox broken down into groups at one instant, read in one statement: the largest groups one
 * by one, the rest summed, and the total, which is the sum of both and so always adds up.
 *
 * @param at the instant it was measured at
 * @param by what the rows are grouped by
 * @param groups the groups with the most rows, most first (ties by group key), at most the query's
 *     limit
 * @param otherGroups how many groups there are beyond {@code groups}
 * @param others the rows of those groups, summed ({@link BacklogCounts#NONE} when there are none)
 * @param total every outbox row
 */
public record BacklogBreakdown(
    Instant at,
    BacklogGrouping by,
    List<BacklogGroup> groups,
    long otherGroups,
    BacklogCounts others,
    BacklogCounts total) {

  public BacklogBreakdown {
    groups = List.copyOf(groups);
  }
}
