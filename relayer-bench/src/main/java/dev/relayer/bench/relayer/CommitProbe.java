package dev.relayer.bench.relayer;

import dev.relayer.bench.pipeline.DeliveryProbe;
import org.jooq.TransactionContext;
import org.jooq.TransactionListener;

/**
 * Tells the probe of a timed producer transaction's commit: installed before Relayer's listener, so
 * that the commit is timed before Relayer's hand-off. The producing thread sets the sequence number
 * of its transaction's message in {@code committing} (untimed transactions leave it empty).
 */
final class CommitProbe implements TransactionListener {

  private final ThreadLocal<long[]> committing;
  private final DeliveryProbe probe;

  CommitProbe(ThreadLocal<long[]> committing, DeliveryProbe probe) {
    this.committing = committing;
    this.probe = probe;
  }

  @Override
  public void commitEnd(TransactionContext ctx) {
    long[] seq = committing.get();
    if (seq != null) {
      probe.committed(seq[0]);
    }
  }
}
