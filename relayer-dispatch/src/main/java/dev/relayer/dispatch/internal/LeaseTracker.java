package dev.relayer.dispatch.internal;

import dev.relayer.store.pass.LeaseOutcome;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers which leases this instance holds, to log and report acquisitions and losses once, and
 * which it ever held, so that a lease found under this owner's name but never held here counts as
 * taken over ({@link #inherited}).
 *
 * <p>The sweeper and cleanup leases get one INFO line per acquisition and loss. Lane leases ({@code
 * lane/<n>}) come and go by the dozen at every start, stop and rebalancing, so each is logged at
 * DEBUG and the changes are gathered into one INFO summary per {@link #summarizeLanes} call (the
 * lane balancer's tick, and shutdown after every lane was released): lanes acquired, lanes lost,
 * lanes held. Listeners still hear of every lease.
 */
public final class LeaseTracker {

  private static final Logger log = LoggerFactory.getLogger(LeaseTracker.class);

  /** Name prefix of lane leases, whose lines are summarised. */
  public static final String LANE_PREFIX = "lane/";

  private final String store;
  private final Events events;
  private final Set<String> held = ConcurrentHashMap.newKeySet();
  private final Set<String> everHeld = ConcurrentHashMap.newKeySet();
  private final SortedSet<Integer> lanesAcquired = new TreeSet<>();
  private final SortedSet<Integer> lanesLost = new TreeSet<>();

  public LeaseTracker(String store, Events events) {
    this.store = store;
    this.events = events;
  }

  /**
   * Whether {@code outcome}, an attempt at {@code lease}, took the lease from an owner that may
   * have died mid-pass: another owner whose lease had expired, or this owner's own name when this
   * tracker never held the lease before. A process restarted under the same identity (a fixed owner
   * such as a pod name) finds its previous life's lease under its own name and cannot know what
   * that life sent before it died, so it must treat the lease as taken over.
   */
  public boolean inherited(String lease, LeaseOutcome outcome) {
    if (!outcome.acquired()) {
      return false;
    }
    boolean first = everHeld.add(lease);
    return outcome.takenOver() || (first && !outcome.newlyAcquired());
  }

  /** Records that {@code owner} gave {@code lease} up (or no longer holds it). */
  public void released(String lease, String owner) {
    observe(lease, owner, false);
  }

  /** Records the outcome of a pass's lease attempt: whether {@code owner} now holds it. */
  public void observe(String lease, String owner, boolean holds) {
    boolean lane = lease.startsWith(LANE_PREFIX);
    if (holds && held.add(lease)) {
      if (lane) {
        log.debug("store={} lease={} acquired by owner={}", store, lease, owner);
        changed(lease, true);
      } else {
        log.info("store={} lease={} acquired by owner={}", store, lease, owner);
      }
      events.emit(l -> l.leaseAcquired(lease, owner));
    } else if (!holds && held.remove(lease)) {
      if (lane) {
        log.debug("store={} lease={} lost by owner={}", store, lease, owner);
        changed(lease, false);
      } else {
        log.info("store={} lease={} lost by owner={}", store, lease, owner);
      }
      events.emit(l -> l.leaseLost(lease, owner));
    }
  }

  private synchronized void changed(String lease, boolean acquired) {
    int lane;
    try {
      lane = Integer.parseInt(lease.substring(LANE_PREFIX.length()));
    } catch (NumberFormatException e) {
      return;
    }
    if (acquired) {
      if (!lanesLost.remove(lane)) {
        lanesAcquired.add(lane);
      }
    } else if (!lanesAcquired.remove(lane)) {
      lanesLost.add(lane);
    }
  }

  /**
   * Logs one INFO line with the lane leases acquired and lost since the previous call, if any
   * changed, and returns it ({@code null} when nothing changed). {@code why} says what the line
   * closes ("balancing", "stopped").
   */
  public synchronized @Nullable String summarizeLanes(String owner, String why) {
    if (lanesAcquired.isEmpty() && lanesLost.isEmpty()) {
      return null;
    }
    SortedSet<Integer> now = new TreeSet<>();
    for (String lease : held) {
      if (lease.startsWith(LANE_PREFIX)) {
        try {
          now.add(Integer.parseInt(lease.substring(LANE_PREFIX.length())));
        } catch (NumberFormatException e) {
          // not one of ours
        }
      }
    }
    String line =
        "store="
            + store
            + " owner="
            + owner
            + " lane leases ("
            + why
            + "): acquired="
            + lanesAcquired
            + " lost="
            + lanesLost
            + " held="
            + now;
    lanesAcquired.clear();
    lanesLost.clear();
    log.info(line);
    return line;
  }

  /** Whether this instance held {@code lease} at its last pass. */
  public boolean holds(String lease) {
    return held.contains(lease);
  }

  /** Leases held now, to release on shutdown. */
  public Set<String> held() {
    return Set.copyOf(held);
  }
}
