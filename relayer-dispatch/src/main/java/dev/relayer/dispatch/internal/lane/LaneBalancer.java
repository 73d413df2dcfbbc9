package dev.relayer.dispatch.internal.lane;

import dev.relayer.dispatch.internal.LeaseTracker;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.LeaseState;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Leases;
import dev.relayer.store.pass.Passes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spreads the lanes over the live instances. Each tick: renew this instance's heartbeat lease
 * {@code instance/<owner>}, read the unexpired heartbeats, compute this instance's share with
 * {@link LaneAssignment}, hand it to the scheduler, and give up the lane leases held beyond it
 * (once no pass of theirs runs). Every instance computes the same assignment from the same
 * heartbeats, so a lane given up by one is the share of another.
 */
public final class LaneBalancer {

  /** Heartbeat lease name prefix. */
  public static final String INSTANCE_PREFIX = "instance/";

  private static final Logger log = LoggerFactory.getLogger(LaneBalancer.class);

  private final RelayerStore store;
  private final HealthReads reads;
  private final Leases leaseStatements;
  private final String owner;
  private final LeaseRequest heartbeat;
  private final LaneScheduler scheduler;
  private final LaneWorker worker;
  private final LeaseTracker leases;
  private Set<Integer> assigned = Set.of();
  private List<String> instances = List.of();

  public LaneBalancer(
      RelayerStore store,
      String owner,
      Duration leaseDuration,
      LaneScheduler scheduler,
      LaneWorker worker,
      LeaseTracker leases) {
    this.store = store;
    this.reads = HealthReads.of(store);
    this.leaseStatements = Passes.of(store).leases();
    this.owner = owner;
    this.heartbeat = new LeaseRequest(INSTANCE_PREFIX + owner, owner, leaseDuration);
    this.scheduler = scheduler;
    this.worker = worker;
    this.leases = leases;
  }

  /** One heartbeat and assignment round; returns this instance's share. */
  public synchronized Set<Integer> tick(DSLContext dsl) {
    // The lane leases taken or lost by passes since the previous tick, as one line.
    leases.summarizeLanes(owner, "since the last balancing");
    LeaseOutcome beat =
        dsl.transactionResult(tx -> leaseStatements.tryAcquire(tx.dsl(), heartbeat));
    if (beat instanceof LeaseOutcome.HeldByOther other) {
      log.warn(
          "store={} heartbeat {} is held by owner={}: two instances share one owner identity",
          store.displayName(),
          heartbeat.name(),
          other.owner());
    }
    List<String> live =
        reads.liveLeases(dsl, INSTANCE_PREFIX).stream().map(LeaseState::owner).sorted().toList();
    Set<Integer> share = LaneAssignment.lanesFor(owner, live, store.options().laneCount());
    if (!share.equals(assigned) || !live.equals(instances)) {
      log.info(
          "store={} owner={} live instances={} assigned lanes={}",
          store.displayName(),
          owner,
          live.size(),
          share);
    }
    assigned = share;
    instances = live;
    scheduler.target(share);
    for (int lane : heldLanes()) {
      if (!share.contains(lane) && !scheduler.running(lane)) {
        worker.release(dsl, lane);
      }
    }
    return share;
  }

  /** This instance's share at the last tick. */
  public synchronized Set<Integer> assigned() {
    return assigned;
  }

  /** Lanes whose lease this instance held at its last pass over them. */
  public Set<Integer> heldLanes() {
    Set<Integer> lanes = new TreeSet<>();
    for (String name : leases.held()) {
      if (name.startsWith(LaneWorker.LEASE_PREFIX)) {
        lanes.add(Integer.parseInt(name.substring(LaneWorker.LEASE_PREFIX.length())));
      }
    }
    return lanes;
  }

  /**
   * Graceful shutdown: gives up every lane lease, then the heartbeat. The first release that fails
   * ends it: the database did not answer, and every further release would wait out the pool's
   * connection timeout again (once per lane); the leases left expire on their own.
   */
  public void releaseAll(DSLContext dsl) {
    List<Integer> lanes = new ArrayList<>(heldLanes());
    for (int i = 0; i < lanes.size(); i++) {
      try {
        worker.release(dsl, lanes.get(i));
      } catch (RuntimeException e) {
        log.warn(
            "store={} could not release the leases of lanes {} nor the heartbeat; they will expire",
            store.displayName(),
            lanes.subList(i, lanes.size()),
            e);
        leases.summarizeLanes(owner, "released at shutdown");
        return;
      }
    }
    leases.summarizeLanes(owner, "released at shutdown");
    try {
      dsl.transaction(tx -> leaseStatements.release(tx.dsl(), heartbeat.name(), owner));
    } catch (RuntimeException e) {
      log.warn("store={} could not release the heartbeat; it will expire", store.displayName(), e);
    }
  }
}
