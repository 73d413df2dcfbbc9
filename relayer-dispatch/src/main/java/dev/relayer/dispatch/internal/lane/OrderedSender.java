package dev.relayer.dispatch.internal.lane;

import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.internal.SendFailure;
import dev.relayer.dispatch.internal.SendOutcome;
import dev.relayer.dispatch.internal.Sender;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimedMessage;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Sends the rows of one lane claim so that, within a key, a row goes out only after every earlier
 * row of the key was accepted.
 *
 * <p>The claim holds, per key, a run: the head and (on batching transports) the rows after it. Runs
 * bound for one transport and destination are packed into native batches:
 *
 * <ul>
 *   <li>on a transport without {@code preservesBatchOrder()}, a batch holds at most one row per key
 *       (heads of different keys), and every result stands alone;
 *   <li>on a transport that preserves batch order, a batch holds consecutive rows of one or more
 *       keys; a run whose head failed before travels alone, so that a known bad head cannot take
 *       healthy keys down with it; every row after the first failure of a batch was not sent (the
 *       transport's contract), so it counts as not attempted.
 * </ul>
 *
 * <p>A failure blocks its key for the rest of the pass: the key's later rows are not attempted and
 * are given back without spending an attempt. Only the first failed row of a key counts as a failed
 * attempt. A head that used more than {@code maxAttempts} claims is reported exhausted and not
 * sent; a head naming an unknown transport fails. No new batch starts once the claim's {@linkplain
 * Sender#lastStart last start} has passed. Each batch is one {@link Sender#sendBatch} call, which
 * bounds it by the send timeout and sorts its results.
 */
final class OrderedSender {

  private final Sender sender;

  OrderedSender(Sender sender) {
    this.sender = sender;
  }

  private static final class Run {
    final String key;
    final boolean suspect;
    final Deque<ClaimedMessage> rows;

    Run(List<ClaimedMessage> rows) {
      // A run holds the ordered rows of one key.
      this.key = Objects.requireNonNull(rows.get(0).orderingKey());
      this.suspect = rows.get(0).lastError() != null;
      this.rows = new ArrayDeque<>(rows);
    }
  }

  private static final class Outcome {
    final List<ClaimedMessage> accepted = new ArrayList<>();
    final List<SendOutcome.Failure> failed = new ArrayList<>();
    final List<ClaimedMessage> exhausted = new ArrayList<>();
    final List<ClaimedMessage> notAttempted = new ArrayList<>();
    final Set<String> blocked = new HashSet<>();

    SendOutcome toSendOutcome() {
      return new SendOutcome(accepted, failed, exhausted, notAttempted);
    }
  }

  SendOutcome send(Claim claim) {
    Instant lastStart = sender.lastStart(claim);
    Map<String, List<ClaimedMessage>> byKey = new LinkedHashMap<>();
    for (ClaimedMessage m : claim.messages()) {
      byKey.computeIfAbsent(m.orderingKey(), k -> new ArrayList<>()).add(m);
    }
    Outcome outcome = new Outcome();
    Map<String, List<Run>> groups = new LinkedHashMap<>();
    for (List<ClaimedMessage> rows : byKey.values()) {
      ClaimedMessage head = rows.get(0);
      List<ClaimedMessage> rest = rows.subList(1, rows.size());
      if (head.attempts() > sender.maxAttempts()) {
        outcome.exhausted.add(head);
        outcome.notAttempted.addAll(rest);
      } else if (sender.transport(head.transport()) == null) {
        outcome.failed.add(
            new SendOutcome.Failure(
                head,
                SendFailure.UNKNOWN_TRANSPORT,
                "unknown transport '" + head.transport() + "'"));
        outcome.notAttempted.addAll(rest);
      } else {
        groups
            .computeIfAbsent(
                head.transport() + '\u0000' + head.destination(), k -> new ArrayList<>())
            .add(new Run(rows));
      }
    }
    for (List<Run> runs : groups.values()) {
      sendGroup(runs, lastStart, outcome);
    }
    return outcome.toSendOutcome();
  }

  private void sendGroup(List<Run> runs, Instant lastStart, Outcome outcome) {
    ClaimedMessage first = runs.get(0).rows.peekFirst();
    // Rows naming an unknown transport were failed before grouping.
    Transport transport = Objects.requireNonNull(sender.transport(first.transport()));
    String destination = first.destination();
    boolean preserving = transport.preservesBatchOrder();
    int limit = Math.max(1, transport.maxBatchSize());
    while (true) {
      List<ClaimedMessage> batch = nextBatch(runs, preserving, limit, outcome);
      if (batch.isEmpty()) {
        return;
      }
      if (sender.passed(lastStart)) {
        outcome.notAttempted.addAll(batch);
        for (Run run : runs) {
          outcome.notAttempted.addAll(run.rows);
          run.rows.clear();
        }
        return;
      }
      SendOutcome sent = sender.sendBatch(transport, destination, batch);
      classify(batch, sent, preserving, outcome);
    }
  }

  /** Takes the next batch's rows off the runs; rows of blocked keys become not attempted. */
  private static List<ClaimedMessage> nextBatch(
      List<Run> runs, boolean preserving, int limit, Outcome outcome) {
    List<ClaimedMessage> batch = new ArrayList<>();
    for (Run run : runs) {
      if (run.rows.isEmpty()) {
        continue;
      }
      if (outcome.blocked.contains(run.key)) {
        outcome.notAttempted.addAll(run.rows);
        run.rows.clear();
        continue;
      }
      if (batch.size() >= limit) {
        break;
      }
      if (!preserving) {
        batch.add(run.rows.pollFirst());
        continue;
      }
      if (run.suspect && !batch.isEmpty()) {
        continue; // a known bad head goes in a batch of its own
      }
      while (!run.rows.isEmpty() && batch.size() < limit) {
        batch.add(run.rows.pollFirst());
      }
      if (run.suspect) {
        break;
      }
    }
    return batch;
  }

  private static void classify(
      List<ClaimedMessage> batch, SendOutcome sent, boolean preserving, Outcome outcome) {
    Set<Long> accepted = new HashSet<>();
    sent.accepted().forEach(m -> accepted.add(m.id()));
    Map<Long, SendOutcome.Failure> failures = new LinkedHashMap<>();
    sent.failed().forEach(f -> failures.put(f.message().id(), f));
    boolean batchBroken = false;
    for (ClaimedMessage m : batch) {
      if (accepted.contains(m.id())) {
        outcome.accepted.add(m);
        continue;
      }
      SendOutcome.Failure failure =
          Objects.requireNonNull(failures.get(m.id()), "no result for a sent row");
      if (outcome.blocked.add(m.orderingKey()) && !batchBroken) {
        outcome.failed.add(failure);
      } else {
        outcome.notAttempted.add(m);
      }
      batchBroken = batchBroken || preserving;
    }
  }
}
