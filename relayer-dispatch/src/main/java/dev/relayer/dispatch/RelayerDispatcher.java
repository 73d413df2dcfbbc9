package dev.relayer.dispatch;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.internal.AfterCommitHandoff;
import dev.relayer.dispatch.internal.Backoff;
import dev.relayer.dispatch.internal.CompletionPlan;
import dev.relayer.dispatch.internal.Delivery;
import dev.relayer.dispatch.internal.DirectDispatcher;
import dev.relayer.dispatch.internal.Events;
import dev.relayer.dispatch.internal.HandoffWatch;
import dev.relayer.dispatch.internal.OperatorLog;
import dev.relayer.dispatch.internal.OutcomeWriter;
import dev.relayer.dispatch.internal.SendabilityCheck;
import dev.relayer.dispatch.internal.Sender;
import dev.relayer.dispatch.internal.lane.LaneNotifier;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreAttachment;
import dev.relayer.store.pass.Passes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.TransactionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers outbox rows right after the transaction that wrote them commits.
 *
 * <pre>{@code
 * RelayerDispatcher dispatcher =
 *     RelayerDispatcher.builder(store, dsl).transport(rabbit).build();
 * dispatcher.start();
 * DSLContext app = DSL.using(dsl.configuration().deriveAppending(dispatcher.transactionListener()));
 * app.transaction(tx -> {
 *   // business writes ...
 *   store.enqueue(tx.dsl(), message);
 * }); // after the commit, a worker claims, sends and deletes the row
 * }</pre>
 *
 * <p>{@code dsl} is the dispatcher's own way to the database (usually the application's pool); it
 * opens short transactions to claim and to complete, never holding a connection during a send. Rows
 * whose hand-off is lost (queue full, process died) are delivered by {@link RelayerMaintenance}'s
 * sweeper after its recovery delay.
 *
 * <p>From the moment it is built until it is closed, the dispatcher checks every message {@code
 * store} enqueues for one of its transports ({@link Transport#problems}): a message the transport
 * can never carry (a destination its broker's naming rules forbid, a header it cannot encode) makes
 * the enqueue throw {@link InvalidInputException} naming the field, and nothing is written. A
 * message naming a transport it does not know is written unchecked.
 *
 * <p>Lane wake-ups: a commit that wrote ordered rows through the {@link #transactionListener()}
 * wakes the lanes' owners in this process at once ({@link RelayerLanes}), and — unless {@code
 * StoreOptions.laneNotifications} is off — the dispatcher's notifier announces the lanes to the
 * other instances: after the commit, from a short transaction of its own on a connection of {@code
 * dsl} (borrowed per round, given back at once), one {@code pg_notify} round carrying every lane
 * written since the last round, at most one round per {@code laneNotifyInterval}. The application's
 * transaction never notifies (a notifying commit takes a database-wide lock). Lanes served in this
 * process are left out of the rounds. The notifier runs from {@link #start()} to {@link #close()};
 * lanes handed over before start wait for it. Ordered rows written without the transaction
 * listener, or through the listener of a dispatcher never started, wake no other instance: their
 * owners find them at their next poll.
 *
 * <p>{@link #start()} is idempotent; {@link #close()} stops taking work, waits up to {@code
 * shutdownTimeout} for in-flight sends, and is safe before start and twice. Close the maintenance
 * worker before the dispatcher it uses.
 */
public final class RelayerDispatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RelayerDispatcher.class);

  private final RelayerStore store;
  private final Passes passes;
  private final DSLContext dsl;

  /** {@link #dsl} for this dispatcher's own transactions: their idle time is bounded. */
  private final DispatchOptions options;

  private final List<String> transportNames;
  private final Delivery delivery;
  private final DirectDispatcher direct;
  private final AfterCommitHandoff handoff;
  private final SendabilityCheck sendability;
  private final StoreAttachment handoffAttachment;
  private final StoreAttachment sendabilityAttachment;
  private final List<Consumer<Set<Integer>>> laneWakeups = new CopyOnWriteArrayList<>();
  private final List<Supplier<Set<Integer>>> localLanes = new CopyOnWriteArrayList<>();
  private final LaneNotifier notifier;
  private final Object lifecycle = new Object();
  private boolean started;
  private boolean closed;

  private RelayerDispatcher(Builder builder) {
    this.store = builder.store;
    this.passes = Passes.of(store);
    this.dsl = builder.dsl;
    this.options = builder.options;
    this.transportNames = List.copyOf(builder.transports.keySet());
    this.delivery = delivery(builder, passes);
    this.direct =
        new DirectDispatcher(
            delivery,
            DirectDispatcher.Settings.of(options),
            // Not idle-bounded (IdleTransactionBound): a direct claim commits before its send and
            // a completion runs after it, so these transactions never wait on a broker.
            dsl);
    this.notifier =
        new LaneNotifier(
            store.displayName(),
            store.options().laneCount(),
            options.laneNotifyInterval(),
            this::sendLaneNotifications,
            this::lanesServedHere);
    this.handoff = new AfterCommitHandoff(this::handOver);
    this.sendability = new SendabilityCheck(builder.transports);
    this.handoffAttachment = store.attach(handoff);
    this.sendabilityAttachment = store.attach(sendability);
  }

  /**
   * The parts direct dispatch, the sweeper and the lanes of this dispatcher share: one sender (one
   * call pool, one watch of the transports), one outcome writer, one hand-off watch, the listeners.
   */
  private static Delivery delivery(Builder builder, Passes passes) {
    String name = builder.store.displayName();
    DispatchOptions options = builder.options;
    Events events = new Events(builder.listeners);
    Sender sender =
        new Sender(
            new Sender.Settings(
                name, builder.transports, options.sendTimeout(), options.maxAttempts()),
            builder.clock,
            events);
    CompletionPlan.RetryPolicy retries =
        new CompletionPlan.RetryPolicy(
            new Backoff(options.backoffInitial(), options.backoffMax()), options.maxAttempts());
    return new Delivery(
        name,
        passes,
        builder.clock,
        events,
        sender,
        new OutcomeWriter(name, retries, sender.sends(), builder.clock, events),
        new HandoffWatch(
            name, builder.clock, OperatorLog.to(LoggerFactory.getLogger(HandoffWatch.class))));
  }

  /** A builder for a dispatcher over {@code store}, using {@code dsl} for its own transactions. */
  public static Builder builder(RelayerStore store, DSLContext dsl) {
    return new Builder(store, dsl);
  }

  /**
   * Starts the direct-dispatch workers; idempotent. First checks the schema once ({@link
   * RelayerStore#verifySchema}): a database without Relayer's tables or columns throws {@link
   * dev.relayer.api.SchemaMismatchException} naming the missing object, and nothing starts (start
   * may be called again once the schema is installed).
   */
  public void start() {
    synchronized (lifecycle) {
      if (started || closed) {
        return;
      }
      // Fail here, naming the missing table or column, rather than on every hand-off later.
      store.verifySchema(dsl);
      started = true;
      log.info(
          "Relayer dispatcher starting: store={} transports={} {}",
          store.displayName(),
          transportNames,
          options.describe());
      direct.start();
      if (store.options().laneNotifications()) {
        notifier.start();
      }
    }
  }

  /**
   * The jOOQ listener that hands a transaction's enqueued ids over after it commits. Install it on
   * the application's configuration: {@code configuration.deriveAppending(listener)}.
   */
  public TransactionListener transactionListener() {
    return handoff;
  }

  /**
   * Hands over ids written by a transaction that has committed, for applications whose transactions
   * jOOQ does not manage. Never blocks: when the queue is full the ids are left to the sweeper.
   * Ordered rows are not woken this way (direct dispatch never claims them): their lanes' owners
   * find them at their next poll.
   */
  public void afterCommit(Collection<Long> ids) {
    Objects.requireNonNull(ids, "ids");
    direct.offer(ids);
  }

  /**
   * Hands over what a committed transaction wrote, as {@link #transactionListener()} does on a jOOQ
   * commit: the unordered ids go to direct dispatch, and the lanes that received ordered rows are
   * woken (in this process at once, in other instances through the notifier). For transaction
   * managers other than jOOQ's that learn both from an {@link dev.relayer.store.EnqueueListener}
   * (for example Spring's after-commit synchronization). Never blocks.
   *
   * @param unorderedIds ids of the unordered rows the transaction wrote
   * @param lanes lanes of the ordered rows it wrote
   */
  public void afterCommit(Collection<Long> unorderedIds, Set<Integer> lanes) {
    Objects.requireNonNull(unorderedIds, "unorderedIds");
    Objects.requireNonNull(lanes, "lanes");
    handOver(List.copyOf(unorderedIds), Set.copyOf(lanes));
  }

  private void handOver(List<Long> unorderedIds, Set<Integer> lanes) {
    if (!unorderedIds.isEmpty()) {
      direct.offer(unorderedIds);
    }
    if (!lanes.isEmpty()) {
      for (Consumer<Set<Integer>> wakeup : laneWakeups) {
        try {
          wakeup.accept(lanes);
        } catch (RuntimeException e) {
          log.warn("store={} lane wake-up callback threw; ignored", store.displayName(), e);
        }
      }
      if (store.options().laneNotifications()) {
        notifier.offer(lanes);
      }
    }
  }

  /**
   * One notification round, in a transaction of its own that does not wait for its WAL flush: it
   * holds PostgreSQL's notification lock only for the commit itself, and a crash that loses it
   * loses a wake-up, which polling covers.
   */
  private void sendLaneNotifications(Set<Integer> lanes) {
    dsl.transaction(tx -> passes.notifyLanesWithoutFlushWait(tx.dsl(), lanes));
  }

  private Set<Integer> lanesServedHere() {
    if (localLanes.isEmpty()) {
      return Set.of();
    }
    Set<Integer> lanes = new HashSet<>();
    for (Supplier<Set<Integer>> served : localLanes) {
      lanes.addAll(served.get());
    }
    return lanes;
  }

  /**
   * Registers the lanes a {@link RelayerLanes} of this dispatcher serves: its commits wake them
   * in-process, so the notifier leaves them out.
   */
  void addLocalLanes(Supplier<Set<Integer>> served) {
    localLanes.add(served);
  }

  void removeLocalLanes(Supplier<Set<Integer>> served) {
    localLanes.remove(served);
  }

  /** Notification rounds this dispatcher's notifier has sent (each one transaction). */
  long laneNotificationRounds() {
    return notifier.rounds();
  }

  /**
   * Registers a callback told, after commit, which lanes received ordered rows. It runs on the
   * committing thread: it must be fast and must not throw.
   */
  public void onLaneWrites(Consumer<Set<Integer>> wakeup) {
    laneWakeups.add(Objects.requireNonNull(wakeup, "wakeup"));
  }

  /** Unregisters a callback added with {@link #onLaneWrites}. */
  public void removeLaneWrites(Consumer<Set<Integer>> wakeup) {
    laneWakeups.remove(wakeup);
  }

  /**
   * Registers an event listener from now on, besides those given to the builder: told about the
   * sends, failures, passes and leases of this dispatcher and of the maintenance and lanes that run
   * on it. Events collected before the call (of a pass in progress) may not reach it.
   */
  public void addEventListener(RelayerEventListener listener) {
    delivery.events().add(Objects.requireNonNull(listener, "listener"));
  }

  /** Unregisters a listener; an event already being delivered may still reach it once. */
  public void removeEventListener(RelayerEventListener listener) {
    delivery.events().remove(listener);
  }

  /** Ids waiting for a direct-dispatch worker. */
  public int queuedIds() {
    return direct.queued();
  }

  public RelayerStore store() {
    return store;
  }

  public DispatchOptions options() {
    return options;
  }

  DSLContext dsl() {
    return dsl;
  }

  /** The parts this dispatcher's components are built from. */
  Delivery delivery() {
    return delivery;
  }

  /**
   * Stops the notifier (after one last round for lanes still waiting) and direct dispatch, each
   * bounded by {@code shutdownTimeout}; safe before start and twice. The transports stay open:
   * whoever created them closes them after the dispatcher (a {@link Relayer} closes those it owns).
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
    }
    handoffAttachment.close();
    sendabilityAttachment.close();
    notifier.close(options.shutdownTimeout());
    direct.stop(options.shutdownTimeout());
    delivery.sender().close();
    log.info("Relayer dispatcher stopped: store={}", store.displayName());
  }

  /** Builds a {@link RelayerDispatcher}. */
  public static final class Builder {
    private final RelayerStore store;
    private final DSLContext dsl;
    private final Map<String, Transport> transports = new LinkedHashMap<>();
    private final List<RelayerEventListener> listeners = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private DispatchOptions options = DispatchOptions.defaults();
    private Clock clock = Clock.systemUTC();

    private Builder(RelayerStore store, DSLContext dsl) {
      this.store = Objects.requireNonNull(store, "store");
      this.dsl = Objects.requireNonNull(dsl, "dsl");
    }

    /** Registers a transport under its name; names must be non-blank and unique. */
    public Builder transport(Transport transport) {
      Objects.requireNonNull(transport, "transport");
      String name = transport.name();
      if (name == null || name.isBlank()) {
        problems.add("transport name must not be blank (" + transport.getClass().getName() + ")");
      } else if (transports.containsKey(name)) {
        problems.add("transport '" + name + "' is registered twice");
      } else if (transport.maxBatchSize() < 1) {
        problems.add("transport '" + name + "' declares maxBatchSize " + transport.maxBatchSize());
      } else {
        transports.put(name, transport);
      }
      return this;
    }

    public Builder options(DispatchOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /** The UTC clock claims and retry times are computed with; default the system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder eventListener(RelayerEventListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /** Validates the registrations; throws listing every problem. */
    public RelayerDispatcher build() {
      if (transports.isEmpty() && problems.isEmpty()) {
        problems.add("at least one transport must be registered");
      }
      if (!problems.isEmpty()) {
        throw new InvalidInputException(problems);
      }
      return new RelayerDispatcher(this);
    }
  }
}
