package dev.relayer.dispatch.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Remembers which leases this instance holds, to log and report acquisitions and losses once. */
public final class LeaseTracker {

  private static final Logger log = LoggerFactory.getLogger(LeaseTracker.class);

  private final String store;
  private final Events events;
  private final Set<String> held = ConcurrentHashMap.newKeySet();

  public LeaseTracker(String store, Events events) {
    this.store = store;
    this.events = events;
  }

  /** Records the outcome of a pass's lease attempt. */
  public void observe(String lease, String owner, boolean holds) {
    if (holds && held.add(lease)) {
      log.info("store={} lease={} acquired by owner={}", store, lease, owner);
      events.emit(l -> l.leaseAcquired(lease, owner));
    } else if (!holds && held.remove(lease)) {
      log.info("store={} lease={} lost by owner={}", store, lease, owner);
      events.emit(l -> l.leaseLost(lease, owner));
    }
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
