package dev.relayer.dispatch.internal;

import dev.relayer.store.EnqueueListener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.jooq.Configuration;
import org.jooq.TransactionContext;
import org.jooq.TransactionListener;

/**
 * Collects the ids enqueued inside a jOOQ transaction and hands them over once it commits; a
 * rollback hands over nothing. Installed on the application's {@link Configuration} as a {@link
 * TransactionListener} and on the store as an {@link EnqueueListener}.
 *
 * <p>jOOQ runs a blocking transaction on the calling thread, so open transactions are tracked per
 * thread; a nested transaction's ids join its parent's and go out when the outermost commits.
 * Enqueues outside a jOOQ transaction are not seen here: call {@code afterCommit(ids)} for them.
 */
public final class AfterCommitHandoff implements TransactionListener, EnqueueListener {

  private static final class Frame {
    final Configuration configuration;
    final List<Long> unorderedIds = new ArrayList<>();
    final Set<Integer> lanes = new HashSet<>();

    Frame(Configuration configuration) {
      this.configuration = configuration;
    }
  }

  private final ThreadLocal<Deque<Frame>> open = ThreadLocal.withInitial(ArrayDeque::new);
  private final BiConsumer<List<Long>, Set<Integer>> handoff;

  /** {@code handoff} receives the unordered ids and the lanes with ordered rows of a commit. */
  public AfterCommitHandoff(BiConsumer<List<Long>, Set<Integer>> handoff) {
    this.handoff = handoff;
  }

  @Override
  public void beginEnd(TransactionContext ctx) {
    open.get().push(new Frame(ctx.configuration()));
  }

  @Override
  public void enqueued(Configuration transaction, List<Long> unorderedIds, Set<Integer> lanes) {
    Deque<Frame> frames = open.get();
    if (frames.isEmpty()) {
      open.remove();
      return;
    }
    Frame target = frames.peek();
    for (Frame frame : frames) {
      if (frame.configuration == transaction) {
        target = frame;
        break;
      }
    }
    target.unorderedIds.addAll(unorderedIds);
    target.lanes.addAll(lanes);
  }

  @Override
  public void commitEnd(TransactionContext ctx) {
    Deque<Frame> frames = open.get();
    Frame frame = frames.peek();
    if (frame == null || frame.configuration != ctx.configuration()) {
      return;
    }
    frames.pop();
    Frame parent = frames.peek();
    if (parent != null) {
      parent.unorderedIds.addAll(frame.unorderedIds);
      parent.lanes.addAll(frame.lanes);
      return;
    }
    open.remove();
    if (!frame.unorderedIds.isEmpty() || !frame.lanes.isEmpty()) {
      handoff.accept(frame.unorderedIds, frame.lanes);
    }
  }

  @Override
  public void rollbackEnd(TransactionContext ctx) {
    Deque<Frame> frames = open.get();
    Frame frame = frames.peek();
    if (frame != null && frame.configuration == ctx.configuration()) {
      frames.pop();
    }
    if (frames.isEmpty()) {
      open.remove();
    }
  }
}
