package dev.relayer.spring.boot;

import dev.relayer.dispatch.Relayer;
import dev.relayer.store.EnqueueListener;
import dev.relayer.store.StoreAttachment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jooq.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Hands the rows enqueued inside a Spring-managed transaction over to {@link Relayer} after the
 * outermost transaction commits, and nothing when it rolls back. Installed on {@link
 * Relayer#store()} as an {@link EnqueueListener} from construction to {@link #close()}.
 *
 * <p>An enqueue on a thread with active Spring transaction synchronization joins the one pending
 * hand-off of that transaction (bound as a transaction resource under this object, and registered
 * as a {@link TransactionSynchronization} with its first enqueue); its {@code afterCommit} passes
 * the unordered ids and the lanes of the ordered rows to {@link Relayer#afterCommit(java.util.
 * Collection, java.util.Collection)}. Spring calls it once, after the outermost commit, whatever
 * joined the transaction ({@code @Transactional}, {@code TransactionTemplate}, the injected {@code
 * DSLContext}, a nested {@code dsl.transaction} savepoint). A suspended transaction ({@code
 * REQUIRES_NEW}) keeps its hand-off apart from the new one's. Enqueues without Spring
 * synchronization are left to the jOOQ listener ({@link Relayer#transactionListener()}) or to the
 * caller's {@code afterCommit}. See the package documentation for rolled-back savepoints.
 */
public final class SpringCommitHandoff implements EnqueueListener, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SpringCommitHandoff.class);

  private final Relayer relayer;
  private final StoreAttachment attachment;

  /** Installs the hand-off on {@code relayer}'s store. */
  public SpringCommitHandoff(Relayer relayer) {
    this.relayer = relayer;
    this.attachment = relayer.store().attach(this);
  }

  @Override
  public void enqueued(Configuration transaction, List<Long> unorderedIds, Set<Integer> lanes) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      return;
    }
    Pending pending = (Pending) TransactionSynchronizationManager.getResource(this);
    if (pending == null) {
      pending = new Pending();
      TransactionSynchronizationManager.bindResource(this, pending);
      TransactionSynchronizationManager.registerSynchronization(pending);
    }
    pending.unorderedIds.addAll(unorderedIds);
    pending.lanes.addAll(lanes);
  }

  /** Uninstalls the hand-off; pending transactions still hand over when they commit. */
  @Override
  public void close() {
    attachment.close();
  }

  /** What one Spring transaction enqueued, handed over after its commit. */
  private final class Pending implements TransactionSynchronization {
    final List<Long> unorderedIds = new ArrayList<>();
    final Set<Integer> lanes = new HashSet<>();

    @Override
    public void suspend() {
      TransactionSynchronizationManager.unbindResource(SpringCommitHandoff.this);
    }

    @Override
    public void resume() {
      TransactionSynchronizationManager.bindResource(SpringCommitHandoff.this, this);
    }

    @Override
    public void afterCommit() {
      try {
        relayer.afterCommit(unorderedIds, lanes);
      } catch (RuntimeException e) {
        // The commit happened: never fail the caller for a hand-off; the sweeper recovers the rows.
        log.warn(
            "store={} after-commit hand-off failed; the sweeper delivers the rows instead: ids={}",
            relayer.store().displayName(),
            unorderedIds,
            e);
      }
    }

    @Override
    public void afterCompletion(int status) {
      TransactionSynchronizationManager.unbindResourceIfPossible(SpringCommitHandoff.this);
    }
  }
}
