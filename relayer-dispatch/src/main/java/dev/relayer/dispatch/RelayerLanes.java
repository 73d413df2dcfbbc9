package dev.relayer.dispatch;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.internal.BackgroundWork;
import dev.relayer.dispatch.internal.Delivery;
import dev.relayer.dispatch.internal.IdleTransactionBound;
import dev.relayer.dispatch.internal.LeaseTracker;
import dev.relayer.dispatch.internal.lane.LaneBalancer;
import dev.relayer.dispatch.internal.lane.LanePassLoop;
import dev.relayer.dispatch.internal.lane.LaneScheduler;
import dev.relayer.dispatch.internal.lane.LaneScheduler.Reason;
import dev.relayer.dispatch.internal.lane.LaneWakeupListener;
import dev.relayer.dispatch.internal.lane.LaneWorker;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.pass.Passes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers ordered messages: run one on every instance. Each lane ({@code StoreOptions.laneCount},
 * the same on every instance) is served by one instance at a time under the lease {@code lane/<n>};
 * live instances share the lanes evenly and take over the lanes of an instance that stops or
 * vanishes. Within an ordering key, rows go out in id order and a row only after every earlier row
 * of its key was accepted; a head that keeps failing is retried with backoff and then parked, which
 * holds its key only (see {@link RelayerOperator}). The protocol is written up in the documentation
 * of {@code dev.relayer.dispatch.internal.lane}.
 *
 * <pre>{@code
 * RelayerDispatcher dispatcher = RelayerDispatcher.builder(store, dsl).transport(kafka).build();
 * RelayerLanes lanes = RelayerLanes.builder(dispatcher).options(LaneOptions.defaults()).build();
 * dispatcher.start();
 * lanes.start();
 * }</pre>
 *
 * <p>Wake-ups: a commit that wrote ordered rows through the dispatcher's transaction listener wakes
 * the lane at once when this instance owns it; other instances learn of it from the notification
 * the writing dispatcher sends after the commit on {@link RelayerStore#laneChannel()} (coalesced,
 * from its own short transaction, never inside the application's), which a dedicated listening
 * connection receives (it reconnects on its own). Each owned lane is also polled every {@code
 * pollInterval}. With {@code listen = false} no connection listens (for PgBouncer in transaction
 * mode).
 *
 * <p>Connections: each running pass holds one connection from the dispatcher's {@code DSLContext}
 * for its whole length, sends included (at most {@code threads} at once); the listening connection
 * is held for the life of the component. By default it comes from the same {@code DSLContext}, so
 * size the pool for it, or give it a {@link Builder#listenConnections(DataSource) DataSource} of
 * its own. ({@link Relayer} turns listening off on a pool of a single connection, see {@link
 * Relayer.Builder#listenConnections(DataSource)}.)
 *
 * <p>{@link #start()} is idempotent; {@link #close()} stops taking work, waits up to {@code
 * shutdownTimeout} for running passes, gives up the lane leases and the heartbeat so that other
 * instances take over at once, and is safe before start and twice. Close it before the dispatcher.
 */
public final class RelayerLanes implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RelayerLanes.class);

  private final RelayerDispatcher dispatcher;
  private final RelayerStore store;
  private final DSLContext dsl;
  private final LaneOptions options;
  private final String owner;
  private final LaneScheduler scheduler;
  private final LaneWorker worker;
  private final LaneBalancer balancer;
  private final LaneWakeupListener listener;
  private final Consumer<Set<Integer>> localWakeup;
  private final Supplier<Set<Integer>> servedLanes;
  private final LanePassLoop passes;
  private final BackgroundWork work;

  private RelayerLanes(Builder builder) {
    this.dispatcher = builder.dispatcher;
    this.store = dispatcher.store();
    this.dsl =
        IdleTransactionBound.apply(
            dispatcher.dsl(),
            IdleTransactionBound.of(
                dispatcher.options().claimDuration(), dispatcher.options().sendTimeout()));
    this.options = builder.options;
    this.owner = builder.owner;
    Delivery delivery = dispatcher.delivery();
    LeaseTracker leases = new LeaseTracker(store.displayName(), delivery.events());
    int laneCount = store.options().laneCount();
    this.scheduler =
        new LaneScheduler(
            laneCount,
            options.threads(),
            options.pollInterval(),
            options.renewInterval(),
            System::nanoTime);
    this.worker =
        new LaneWorker(
            delivery,
            LaneWorker.Settings.of(owner, options, dispatcher.options().claimDuration()),
            leases);
    this.balancer =
        new LaneBalancer(store, owner, options.leaseDuration(), scheduler, worker, leases);
    this.listener =
        new LaneWakeupListener(
            store.displayName(),
            store.laneChannel(),
            builder.listenConnections != null
                ? LaneWakeupListener.Connections.of(builder.listenConnections)
                : LaneWakeupListener.Connections.of(dsl.configuration().connectionProvider()),
            scheduler,
            options.reconnectDelay(),
            options.leaseDuration());
    this.localWakeup = lanes -> lanes.forEach(scheduler::wake);
    this.servedLanes = balancer::heldLanes;
    this.passes =
        new LanePassLoop(store.displayName(), laneCount, scheduler, worker, dsl, delivery.clock());
    this.work = new BackgroundWork(store.displayName(), "lane passes", log);
  }

  /** A builder for the lanes of {@code dispatcher}'s store, sending through its transports. */
  public static Builder builder(RelayerDispatcher dispatcher) {
    return new Builder(dispatcher);
  }

  /** Lanes with default options and a fresh, unique owner identity. */
  public static RelayerLanes create(RelayerDispatcher dispatcher) {
    return builder(dispatcher).build();
  }

  /** This instance's identity in leases and heartbeats. */
  public String owner() {
    return owner;
  }

  /** The options this instance runs with. */
  public LaneOptions options() {
    return options;
  }

  /**
   * Starts the balancer, the listener (unless poll-only) and the lane threads; idempotent. First
   * checks the schema once ({@link RelayerStore#verifySchema}): a database without Relayer's tables
   * or columns throws {@link dev.relayer.api.SchemaMismatchException} naming the missing object,
   * and nothing starts.
   */
  public void start() {
    work.start(
        threads -> {
          store.verifySchema(dsl);
          log.info(
              "Relayer lanes starting: store={} owner={} laneCount={} channel={} {}",
              store.displayName(),
              owner,
              store.options().laneCount(),
              options.listen() ? store.laneChannel() : "(poll only)",
              options.describe());
          warnAboutRowsOutsideLanes();
          dispatcher.onLaneWrites(localWakeup);
          dispatcher.addLocalLanes(servedLanes);
          threads.helper("lane-balance", () -> work.every(this::balance, options.renewInterval()));
          if (options.listen()) {
            threads.helper("lane-listen", listener);
          }
          threads.work("lane", options.threads(), () -> passes.run(work::running));
        });
  }

  private void warnAboutRowsOutsideLanes() {
    try {
      long outside = Passes.of(store).orderedRowsOutsideLanes(dsl);
      if (outside > 0) {
        log.error(
            "store={} {} ordered rows sit in lanes at or above laneCount={}: they were written"
                + " with a larger lane count and no owner of this configuration sends them",
            store.displayName(),
            outside,
            store.options().laneCount());
      }
    } catch (RuntimeException e) {
      log.warn("store={} could not check lanes outside laneCount", store.displayName(), e);
    }
  }

  /** One heartbeat and assignment round of the balancing thread. */
  private void balance() {
    try {
      balancer.tick(dsl);
    } catch (Throwable e) {
      log.warn("store={} lane balancing failed; will retry", store.displayName(), e);
    }
  }

  /**
   * Runs one full pass over {@code lane} on the calling thread; for tests, tools and benchmarks.
   */
  public LanePassResult passOnce(int lane) {
    // passOnce answers for every lane it is given.
    return Objects.requireNonNull(passOnce(List.of(lane)).get(lane));
  }

  /**
   * Runs one full pass over {@code lanes} together (one transaction, as the lane threads serve
   * lanes that are ready at once) on the calling thread; what it did per lane, in the order given.
   * For tests, tools and benchmarks.
   */
  public Map<Integer, LanePassResult> passOnce(List<Integer> lanes) {
    Objects.requireNonNull(lanes, "lanes");
    if (lanes.isEmpty() || Set.copyOf(lanes).size() != lanes.size()) {
      throw new InvalidInputException("lanes must name one or more distinct lanes, was " + lanes);
    }
    for (int lane : lanes) {
      if (lane < 0 || lane >= store.options().laneCount()) {
        throw new InvalidInputException(
            "lane must be between 0 and " + (store.options().laneCount() - 1) + ", was " + lane);
      }
    }
    Map<Integer, LanePassResult> results = new LinkedHashMap<>();
    for (LaneWorker.PassResult result : worker.pass(dsl, lanes, LaneWorker.Pace.alone())) {
      results.put(
          result.lane(),
          new LanePassResult(
              result.owner(),
              result.claimed(),
              result.sent(),
              result.failed(),
              result.givenBack(),
              result.more()));
    }
    return results;
  }

  /**
   * Runs one heartbeat and assignment round on the calling thread; returns this instance's share.
   */
  public Set<Integer> balanceOnce() {
    return balancer.tick(dsl);
  }

  /** The lanes assigned to this instance at the last balancing round. */
  public Set<Integer> assignedLanes() {
    return balancer.assigned();
  }

  /** The lanes whose lease this instance held at its last pass over them. */
  public Set<Integer> ownedLanes() {
    return balancer.heldLanes();
  }

  /** Counters since creation. */
  public LaneStats stats() {
    return new LaneStats(
        scheduler.passes(Reason.WAKEUP),
        scheduler.passes(Reason.CONTINUE),
        scheduler.passes(Reason.DUE),
        scheduler.passes(Reason.POLL),
        scheduler.passes(Reason.ACQUIRE),
        scheduler.passes(Reason.RENEW),
        listener.notifications(),
        listener.connects());
  }

  /** The server process id of the listening connection, or 0 when none is open. */
  public int listenerBackendPid() {
    return listener.backendPid();
  }

  /**
   * Stops taking work, waits up to {@code shutdownTimeout} for running passes, releases this
   * instance's lane leases and heartbeat. Safe before start and twice.
   */
  @Override
  public void close() {
    if (!work.stop()) {
      return;
    }
    scheduler.stop();
    listener.stop();
    dispatcher.removeLaneWrites(localWakeup);
    dispatcher.removeLocalLanes(servedLanes);
    if (!work.drain(options.shutdownTimeout())) {
      // Never started; leases taken by passOnce() are still given up.
      if (!balancer.heldLanes().isEmpty()) {
        balancer.releaseAll(dsl);
      }
      return;
    }
    balancer.releaseAll(dsl);
    log.info("Relayer lanes stopped: store={} owner={}", store.displayName(), owner);
  }

  /** Builds {@link RelayerLanes}. */
  public static final class Builder {
    private final RelayerDispatcher dispatcher;
    private LaneOptions options = LaneOptions.defaults();
    private String owner = RelayerMaintenance.defaultOwner();
    private @Nullable DataSource listenConnections;

    private Builder(RelayerDispatcher dispatcher) {
      this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
    }

    public Builder options(LaneOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * This instance's identity in leases and heartbeats; default {@code host/pid/random}. It must
     * be unique among live instances: two instances with one identity would share lanes.
     */
    public Builder owner(String owner) {
      if (owner == null || owner.isBlank()) {
        throw new InvalidInputException("lanes owner must not be blank");
      }
      this.owner = owner;
      return this;
    }

    /**
     * Where the listening connection comes from; default the dispatcher's {@code DSLContext}. A
     * direct (unpooled, not PgBouncer) data source is the usual choice.
     */
    public Builder listenConnections(DataSource dataSource) {
      this.listenConnections = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    public RelayerLanes build() {
      return new RelayerLanes(this);
    }
  }
}
