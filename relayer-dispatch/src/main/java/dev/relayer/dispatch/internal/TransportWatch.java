package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.TransportSends;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Watches each transport's sends: counts accepted and failed messages per second over the last
 * minute (for {@link dev.relayer.dispatch.RelayerHealth}), and tells the operator when a transport
 * starts failing, while it keeps failing, and when it recovers.
 *
 * <p>A transport <em>starts failing</em> with the first send call in which every message failed; it
 * <em>recovers</em> with the first later call in which any message was accepted. Lines: one WARN
 * when it starts failing (error and destination), then at most one WARN a minute while it keeps
 * failing (failures since the previous line, the latest error and destination), and one INFO when
 * it recovers (how long it failed, how many messages failed). A call with some messages accepted
 * and some failed (the broker rejected single messages) is not an outage: it logs nothing here.
 * Lines are decided when sends are recorded, by the injected clock; nothing runs on a timer.
 *
 * <p><b>Outages are not poison.</b> A transport is <em>in an outage</em> while it is failing and at
 * least two different rows have failed since it started failing: every send failed, whatever was
 * sent. {@link #recorded} gives back the attempt of every <em>timed-out</em> send to such a
 * transport ({@link SendOutcome.Failure#refunded()}): a broker that stalls answers nobody, so no
 * single message is to blame, and a stall of any length kills and parks nothing. (A message that
 * did not reach the broker at all is given back its attempt anyway: {@link
 * SendFailure#UNAVAILABLE}.) One message timing out alone, again and again while nothing else is
 * sent, is charged: it may be the message. Failures the broker answered about one message (a
 * refusal) stay charged: the broker could take the others. So at most the first timed-out call of
 * an outage counts.
 */
public final class TransportWatch {

  /** The window of the counts, and the least time between two "still failing" lines. */
  public static final Duration WINDOW = Duration.ofMinutes(1);

  /**
   * How long after the latest retry hold its failed sends set a transport still counts as failing:
   * time for the retry to be claimed (a sweeper pass, a lane poll) and sent (the send timeout).
   */
  public static final Duration RETRY_GRACE = Duration.ofSeconds(30);

  private static final int SECONDS = (int) WINDOW.toSeconds();

  private final String store;
  private final Clock clock;
  private final OperatorLog log;
  private final Map<String, State> states = new ConcurrentHashMap<>();

  public TransportWatch(String store, Clock clock, OperatorLog log) {
    this.store = store;
    this.clock = clock;
    this.log = log;
  }

  /** One transport's counters and failure state; guarded by its own lock. */
  private static final class State {
    final long[] second = new long[SECONDS];
    final long[] succeeded = new long[SECONDS];
    final long[] failed = new long[SECONDS];
    @Nullable Instant failingSince;
    @Nullable Instant lastWarning;
    long failedSinceWarning;
    long failedInRun;
    @Nullable String lastError;
    @Nullable String lastDestination;
    @Nullable Instant lastFailureAt;
    // The first row that failed in the current run (0: none yet), and whether another has since.
    long firstFailedId;
    boolean severalFailed;
    @Nullable Instant heldUntil;

    void add(long epochSecond, int ok, int bad) {
      int slot = (int) Math.floorMod(epochSecond, (long) SECONDS);
      if (second[slot] != epochSecond) {
        second[slot] = epochSecond;
        succeeded[slot] = 0;
        failed[slot] = 0;
      }
      succeeded[slot] += ok;
      failed[slot] += bad;
    }
  }

  /**
   * Records what one {@link Sender} send did, per transport, and returns it: accepted and failed
   * messages; rows naming an unregistered transport, and rows not attempted, are not sends.
   */
  public SendOutcome recorded(SendOutcome outcome) {
    Map<String, int[]> counts = new TreeMap<>();
    Map<String, SendOutcome.Failure> firstFailure = new TreeMap<>();
    Map<String, List<Long>> failedIds = new TreeMap<>();
    outcome.accepted().forEach(m -> counts.computeIfAbsent(m.transport(), t -> new int[2])[0]++);
    for (SendOutcome.Failure f : outcome.failed()) {
      if (f.reason() == SendFailure.UNKNOWN_TRANSPORT) {
        continue;
      }
      counts.computeIfAbsent(f.message().transport(), t -> new int[2])[1]++;
      firstFailure.putIfAbsent(f.message().transport(), f);
      failedIds
          .computeIfAbsent(f.message().transport(), t -> new ArrayList<>())
          .add(f.message().id());
    }
    counts.forEach(
        (transport, c) -> {
          SendOutcome.Failure f = firstFailure.get(transport);
          record(
              transport,
              f == null ? null : f.message().destination(),
              c[0],
              c[1],
              f == null ? null : f.error(),
              failedIds.getOrDefault(transport, List.of()));
        });
    if (failedIds.isEmpty()) {
      return outcome;
    }
    List<SendOutcome.Failure> failed = new ArrayList<>(outcome.failed().size());
    boolean refunded = false;
    for (SendOutcome.Failure f : outcome.failed()) {
      if (f.charged() && f.reason() == SendFailure.TIMED_OUT && inOutage(f.message().transport())) {
        failed.add(f.refunded());
        refunded = true;
      } else {
        failed.add(f);
      }
    }
    return refunded
        ? new SendOutcome(outcome.accepted(), failed, outcome.exhausted(), outcome.notAttempted())
        : outcome;
  }

  /**
   * Whether {@code transport} is in an outage (see the class documentation): failing, with at least
   * two different rows failed since it started.
   */
  public boolean inOutage(String transport) {
    State state = states.get(transport);
    if (state == null) {
      return false;
    }
    synchronized (state) {
      return state.failingSince != null && state.severalFailed;
    }
  }

  /**
   * How long {@code transport} has been failing every send, or zero when it is not failing: what
   * the backoff of a row failed in an outage grows with.
   */
  public Duration failingFor(String transport) {
    State state = states.get(transport);
    if (state == null) {
      return Duration.ZERO;
    }
    synchronized (state) {
      Instant since = state.failingSince;
      return since == null ? Duration.ZERO : Duration.between(since, clock.instant());
    }
  }

  /**
   * Records one send call of {@code transport} to {@code destination}: {@code accepted} messages
   * accepted, {@code failed} failed, the first failure's {@code error} (or {@code null}).
   */
  public void record(
      String transport,
      @Nullable String destination,
      int accepted,
      int failed,
      @Nullable String error) {
    record(transport, destination, accepted, failed, error, List.of());
  }

  /** {@link #record(String, String, int, int, String)}, with the ids of the rows that failed. */
  private void record(
      String transport,
      @Nullable String destination,
      int accepted,
      int failed,
      @Nullable String error,
      List<Long> failedIds) {
    if (accepted == 0 && failed == 0) {
      return;
    }
    Instant now = clock.instant();
    State state = states.computeIfAbsent(transport, t -> new State());
    String line = null;
    boolean warn = true;
    synchronized (state) {
      state.add(now.getEpochSecond(), accepted, failed);
      if (failed > 0) {
        state.lastError = error;
        state.lastDestination = destination;
        state.lastFailureAt = now;
      }
      if (accepted == 0) {
        if (state.failingSince == null) {
          state.firstFailedId = 0; // outbox ids start at 1: none yet in this run
          state.severalFailed = false;
        }
        for (long id : failedIds) {
          if (state.firstFailedId == 0) {
            state.firstFailedId = id;
          } else if (id != state.firstFailedId) {
            state.severalFailed = true;
          }
        }
        if (state.failingSince == null) {
          state.failingSince = now;
          state.lastWarning = now;
          state.failedSinceWarning = 0;
          state.failedInRun = failed;
          line =
              "store="
                  + store
                  + " transport="
                  + transport
                  + " sends are failing: destination="
                  + destination
                  + " failed="
                  + failed
                  + " error="
                  + error;
        } else {
          state.failedInRun += failed;
          state.failedSinceWarning += failed;
          // Set with failingSince, which is set here.
          Instant lastWarning = Objects.requireNonNull(state.lastWarning);
          if (!now.isBefore(lastWarning.plus(WINDOW))) {
            line =
                "store="
                    + store
                    + " transport="
                    + transport
                    + " still failing since "
                    + state.failingSince
                    + ": failed="
                    + state.failedSinceWarning
                    + " since the last report, "
                    + state.failedInRun
                    + " in all; last destination="
                    + destination
                    + " error="
                    + error;
            state.lastWarning = now;
            state.failedSinceWarning = 0;
          }
        }
      } else if (state.failingSince != null) {
        state.failedInRun += failed;
        line =
            "store="
                + store
                + " transport="
                + transport
                + " sends succeed again after failing for "
                + Durations.format(Duration.between(state.failingSince, now))
                + " (failed="
                + state.failedInRun
                + ")";
        warn = false;
        state.failingSince = null;
        state.lastWarning = null;
        state.severalFailed = false;
        state.heldUntil = null;
      }
    }
    if (line != null) {
      if (warn) {
        log.warn(line);
      } else {
        log.info(line);
      }
    }
  }

  /**
   * Records that a failed send of {@code transport} holds a row until {@code retryAt}: while the
   * transport keeps failing, it counts as {@linkplain TransportSends#failing() failing} until
   * {@link #RETRY_GRACE} after the latest such hold, even when no send fell in the last minute.
   */
  public void held(String transport, Instant retryAt) {
    State state = states.get(transport);
    if (state == null) {
      return;
    }
    synchronized (state) {
      if (state.failingSince != null
          && (state.heldUntil == null || retryAt.isAfter(state.heldUntil))) {
        state.heldUntil = retryAt;
      }
    }
  }

  /** Every transport that was sent to, with its counts over the last minute, by name. */
  public Map<String, TransportSends> lastMinute() {
    Instant now = clock.instant();
    long current = now.getEpochSecond();
    Map<String, TransportSends> result = new TreeMap<>();
    states.forEach(
        (name, state) -> {
          synchronized (state) {
            long ok = 0;
            long bad = 0;
            for (int i = 0; i < SECONDS; i++) {
              if (state.second[i] > current - SECONDS && state.second[i] <= current) {
                ok += state.succeeded[i];
                bad += state.failed[i];
              }
            }
            boolean recentFailure =
                state.lastFailureAt != null && state.lastFailureAt.isAfter(now.minus(WINDOW));
            boolean awaitingRetry =
                state.failingSince != null
                    && state.heldUntil != null
                    && now.isBefore(state.heldUntil.plus(RETRY_GRACE));
            result.put(
                name,
                new TransportSends(
                    name,
                    ok,
                    bad,
                    (bad > 0 && ok == 0) || awaitingRetry,
                    Optional.ofNullable(state.failingSince),
                    recentFailure ? Optional.ofNullable(state.lastError) : Optional.empty(),
                    recentFailure ? Optional.ofNullable(state.lastDestination) : Optional.empty()));
          }
        });
    return result;
  }
}
