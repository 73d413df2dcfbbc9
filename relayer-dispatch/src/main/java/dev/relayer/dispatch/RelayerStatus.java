package dev.relayer.dispatch;

import dev.relayer.dispatch.internal.lane.LaneBalancer;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.health.BacklogBreakdown;
import dev.relayer.store.health.BacklogGrouping;
import dev.relayer.store.health.BacklogQuery;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.LeaseState;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadGroup;
import dev.relayer.store.ops.ParkedKey;
import dev.relayer.store.ops.StoreOperations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jooq.DSLContext;

/**
 * What an operator sees of one store at one instant ({@link RelayerOperator#status}): the health
 * report (default thresholds), the backlog broken down by transport, destination or tenant, the
 * longest-parked keys, the dead rows by error fingerprint and the live instances. Every list that
 * grows with the data is bounded by {@link #limit()}; leases and instances grow only with the lane
 * count and the number of instances and are complete.
 *
 * <p>The parts are separate statements at the same instant {@link HealthReport#at()}, not one
 * snapshot: a row written between two of them may show in one and not the other. Within the
 * breakdown the groups, the rest and the total come from one statement and always add up.
 *
 * @param store the store's name ({@link RelayerStore#displayName()}: schema and prefix)
 * @param health the health check, with the default thresholds of {@link RelayerHealth}
 * @param backlog the outbox by group
 * @param longestParked the parked keys parked longest, oldest first, at most {@code limit}
 * @param deadGroups the dead rows by error fingerprint, most rows first, at most {@code limit}
 * @param otherDeadRows the dead rows outside {@code deadGroups}
 * @param liveLeases the unexpired leases (database clock), by name
 * @param instances the owners of {@code liveLeases}, in owner order
 * @param limit the bound of the lists above
 */
public record RelayerStatus(
    String store,
    HealthReport health,
    BacklogBreakdown backlog,
    List<ParkedKey> longestParked,
    List<DeadGroup> deadGroups,
    long otherDeadRows,
    List<LeaseState> liveLeases,
    List<LiveInstance> instances,
    int limit) {

  /** The default {@link #limit()}: {@value}. */
  public static final int DEFAULT_LIMIT = 20;

  public RelayerStatus {
    longestParked = List.copyOf(longestParked);
    deadGroups = List.copyOf(deadGroups);
    liveLeases = List.copyOf(liveLeases);
    instances = List.copyOf(instances);
  }

  /** Whether {@code lease}, from {@link HealthReport#leases()}, is held and unexpired. */
  public boolean isLive(LeaseState lease) {
    return liveLeases.stream()
        .anyMatch(l -> l.name().equals(lease.name()) && l.owner().equals(lease.owner()));
  }

  static RelayerStatus read(
      RelayerStore store, DSLContext dsl, Instant now, BacklogGrouping by, int limit) {
    BacklogQuery query = new BacklogQuery(now, by, limit);
    HealthReport health = RelayerHealth.builder(store).build().check(dsl, now);
    HealthReads reads = HealthReads.of(store);
    BacklogBreakdown backlog = reads.backlogBreakdown(dsl, query);
    List<ParkedKey> parked = reads.longestParkedKeys(dsl, limit);
    List<DeadGroup> groups = StoreOperations.of(store).deadGroups(dsl, DeadFilter.all(), limit);
    long inGroups = groups.stream().mapToLong(DeadGroup::count).sum();
    List<LeaseState> live = reads.liveLeases(dsl, "");
    return new RelayerStatus(
        store.displayName(),
        health,
        backlog,
        parked,
        groups,
        Math.max(0, health.deadRows() - inGroups),
        live,
        instances(live),
        limit);
  }

  private static List<LiveInstance> instances(List<LeaseState> live) {
    Map<String, List<LeaseState>> byOwner = new TreeMap<>();
    for (LeaseState lease : live) {
      byOwner.computeIfAbsent(lease.owner(), o -> new ArrayList<>()).add(lease);
    }
    List<LiveInstance> instances = new ArrayList<>();
    for (Map.Entry<String, List<LeaseState>> entry : byOwner.entrySet()) {
      List<LeaseState> leases = entry.getValue();
      Optional<Instant> heartbeat =
          leases.stream()
              .filter(l -> l.name().equals(LaneBalancer.INSTANCE_PREFIX + entry.getKey()))
              .map(LeaseState::expiresAt)
              .findFirst();
      Instant until =
          leases.stream().map(LeaseState::expiresAt).max(Instant::compareTo).orElseThrow();
      instances.add(
          new LiveInstance(
              entry.getKey(),
              leases.stream().map(LeaseState::name).sorted().toList(),
              heartbeat,
              until));
    }
    return instances;
  }
}
