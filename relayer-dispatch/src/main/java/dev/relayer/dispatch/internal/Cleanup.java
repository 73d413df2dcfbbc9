package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.CleanupResult;
import dev.relayer.store.LeaseRequest;
import dev.relayer.store.RelayerStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jooq.DSLContext;

/**
 * One cleanup pass under the {@code cleanup} lease: deletes at most {@code batchSize} dead rows
 * older than the dead retention and at most {@code batchSize} inbox records older than the inbox
 * retention. Pending and parked outbox rows never expire.
 */
public final class Cleanup {

  /** Name of the cleanup lease. */
  public static final String LEASE = "cleanup";

  /** What cleanup needs. */
  public record Settings(
      String owner,
      int batchSize,
      Duration leaseDuration,
      Optional<Duration> deadRetention,
      Optional<Duration> inboxRetention) {}

  private final RelayerStore store;
  private final Settings settings;
  private final LeaseTracker leases;

  public Cleanup(RelayerStore store, Settings settings, LeaseTracker leases) {
    this.store = store;
    this.settings = settings;
    this.leases = leases;
  }

  public LeaseRequest lease() {
    return new LeaseRequest(LEASE, settings.owner(), settings.leaseDuration());
  }

  public CleanupResult pass(DSLContext dsl, Instant now) {
    CleanupResult result =
        dsl.transactionResult(
            tx -> {
              DSLContext t = tx.dsl();
              store.commitWithoutFlushWait(t);
              if (!store.tryAcquireLease(t, lease()).acquired()) {
                return new CleanupResult(false, 0, 0);
              }
              int dead =
                  settings
                      .deadRetention()
                      .map(r -> store.deleteDeadBefore(t, now.minus(r), settings.batchSize()))
                      .orElse(0);
              int inbox =
                  settings
                      .inboxRetention()
                      .map(r -> store.deleteInboxBefore(t, now.minus(r), settings.batchSize()))
                      .orElse(0);
              store.renewLease(t, lease());
              return new CleanupResult(true, dead, inbox);
            });
    leases.observe(LEASE, settings.owner(), result.leader());
    return result;
  }
}
