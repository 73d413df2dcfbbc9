package dev.relayer.dispatch;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.internal.BackgroundWork;
import dev.relayer.dispatch.internal.Cleanup;
import dev.relayer.dispatch.internal.Delivery;
import dev.relayer.dispatch.internal.Durations;
import dev.relayer.dispatch.internal.Events;
import dev.relayer.dispatch.internal.IdleTransactionBound;
import dev.relayer.dispatch.internal.LeaseTracker;
import dev.relayer.dispatch.internal.OperatorLog;
import dev.relayer.dispatch.internal.PassFailureWatch;
import dev.relayer.dispatch.internal.Sweeper;
import dev.relayer.dispatch.spi.PassKind;
import dev.relayer.schema.SchemaNames;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.pass.Passes;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The maintenance worker: run one on every instance. Under database leases, one instance at a time
 * sweeps (delivers unordered rows whose hand-off was lost, failed rows whose backoff ended, and
 * newly due scheduled rows) and one runs cleanup (retention of dead rows and inbox records). See
 * the package documentation for the protocol.
 *
 * <p>It reuses the dispatcher's transports and delivery path. {@link #start()} runs passes on a
 * library-owned thread: after a pass that claimed a full {@code batchSize} page and sent all of it
 * the next starts at once (a backlog is being worked off); after any other pass it waits {@code
 * sweepInterval}. {@link #sweepOnce()} and {@link #cleanupOnce()} run one pass on the calling
 * thread. {@link #close()} stops the loop, waits up to {@code shutdownTimeout} for a running pass,
 * and releases the leases this instance holds.
 */
public final class RelayerMaintenance implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RelayerMaintenance.class);

  private final RelayerStore store;
  private final DSLContext dsl;
  private final MaintenanceOptions options;
  private final String owner;
  private final Clock clock;
  private final Events events;
  private final PassFailureWatch failures;
  private final LeaseTracker leases;
  private final Sweeper sweeper;
  private final Cleanup cleanup;
  private final BackgroundWork work;
  private Instant nextCleanup = Instant.MIN;

  private RelayerMaintenance(
      RelayerDispatcher dispatcher, MaintenanceOptions options, String owner) {
    this.store = dispatcher.store();
    this.dsl =
        IdleTransactionBound.apply(
            dispatcher.dsl(),
            IdleTransactionBound.of(options.claimDuration(), dispatcher.options().sendTimeout()));
    this.options = options;
    this.owner = owner;
    Delivery delivery = dispatcher.delivery();
    this.clock = delivery.clock();
    this.events = delivery.events();
    this.leases = new LeaseTracker(store.displayName(), events);
    this.failures =
        new PassFailureWatch(
            store.displayName(), "maintenance", 1, "will retry", clock, OperatorLog.to(log));
    this.sweeper = new Sweeper(delivery, Sweeper.Settings.of(owner, options), leases);
    this.work = new BackgroundWork(store.displayName(), "maintenance pass", log);
    this.cleanup =
        new Cleanup(
            store,
            new Cleanup.Settings(
                owner,
                options.cleanupBatchSize(),
                options.cleanupBudget(),
                options.cleanupPauseFactor(),
                options.leaseDuration(),
                options.deadRetention().duration(),
                options.inboxRetention().duration(),
                options.idempotencyKeyRetention().duration()),
            leases);
  }

  /** Maintenance over the dispatcher's store, database and transports, with default options. */
  public static RelayerMaintenance create(RelayerDispatcher dispatcher) {
    return create(dispatcher, MaintenanceOptions.defaults());
  }

  /** Maintenance with the given options and a fresh, unique owner identity. */
  public static RelayerMaintenance create(
      RelayerDispatcher dispatcher, MaintenanceOptions options) {
    return create(dispatcher, options, defaultOwner());
  }

  /**
   * Maintenance with an explicit owner identity; it must be unique among live instances (two
   * instances with one identity would share leases).
   */
  public static RelayerMaintenance create(
      RelayerDispatcher dispatcher, MaintenanceOptions options, String owner) {
    Objects.requireNonNull(dispatcher, "dispatcher");
    Objects.requireNonNull(options, "options");
    List<String> problems = new ArrayList<>();
    if (owner == null || owner.isBlank()) {
      problems.add("maintenance owner must not be blank");
    }
    Duration sendTimeout = dispatcher.options().sendTimeout();
    Duration least = sendTimeout.plus(DispatchOptions.ROUND_TRIPS);
    if (options.claimDuration().compareTo(least) < 0) {
      problems.add(
          "maintenance claimDuration ("
              + Durations.format(options.claimDuration())
              + ") must be at least the dispatcher's sendTimeout ("
              + Durations.format(sendTimeout)
              + ") plus "
              + Durations.format(DispatchOptions.ROUND_TRIPS)
              + " for the database round trips; a sweeper claim that lapses before its send can"
              + " end spends attempts without sending");
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
    return new RelayerMaintenance(dispatcher, options, owner);
  }

  /** {@code host/pid/random}: unique per instance. */
  static String defaultOwner() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "unknown-host";
    }
    long pid = ManagementFactory.getRuntimeMXBean().getPid();
    return host + "/" + pid + "/" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** This instance's lease owner identity. */
  public String owner() {
    return owner;
  }

  /**
   * Starts the pass loop; idempotent. First checks the schema once ({@link
   * RelayerStore#verifySchema}): a database without Relayer's tables or columns throws {@link
   * dev.relayer.api.SchemaMismatchException} naming the missing object, and nothing starts.
   */
  public void start() {
    work.start(
        threads -> {
          store.verifySchema(dsl);
          log.info(
              "Relayer maintenance starting: store={} owner={} {}",
              store.displayName(),
              owner,
              options.describe());
          threads.work(
              "maintenance", 1, () -> work.repeat(this::passFoundBacklog, options.sweepInterval()));
        });
  }

  /**
   * One pass of the loop: a sweep, then cleanup when it is due. Whether it found a backlog: a full
   * page, all of it sent, so that more is probably waiting and the next pass goes on at once. A
   * partial page, a failed send or an error waits {@code sweepInterval}.
   */
  private boolean passFoundBacklog() {
    try {
      SweepResult result = sweep();
      if (result.sent() > 0) {
        log.info(
            "store={} sweeper sent={} claimed={}",
            store.displayName(),
            result.sent(),
            result.claimed());
      }
      cleanupIfDue();
      failures.worked();
      return result.claimed() == options.batchSize() && result.sent() == result.claimed();
    } catch (Throwable e) {
      log.debug("store={} maintenance pass failed", store.displayName(), e);
      failures.failed(e);
      return false;
    }
  }

  private void cleanupIfDue() {
    Instant now = clock.instant();
    if (now.isBefore(nextCleanup)) {
      return;
    }
    CleanupResult result = clean(now, () -> !work.running(), this::awaitUnlessStopped);
    // A run that ended on its budget with rows left goes on after the next sweep pass; one that
    // drained (or did not lead) waits the interval.
    nextCleanup = result.leader() && !result.drained() ? now : now.plus(options.cleanupInterval());
    if (result.deadDeleted() + result.inboxDeleted() > 0) {
      log.info(
          "store={} cleanup deleted dead={} inbox={} batches={} drained={}",
          store.displayName(),
          result.deadDeleted(),
          result.inboxDeleted(),
          result.batches(),
          result.drained());
    }
  }

  /** Runs one sweep pass on the calling thread; for tests, tools and benchmarks. */
  public SweepResult sweepOnce() {
    return sweep();
  }

  /** One sweeper pass, reported to the event listeners. */
  private SweepResult sweep() {
    long started = events.passStarted();
    SweepResult result = sweeper.pass(dsl);
    events.passFinished(PassKind.SWEEPER, started);
    return result;
  }

  /** One cleanup run, reported to the event listeners with what it deleted from each table. */
  private CleanupResult clean(Instant now, BooleanSupplier stop, Cleanup.Pause pause) {
    long started = events.passStarted();
    CleanupResult result = cleanup.pass(dsl, now, stop, pause);
    events.passFinished(PassKind.CLEANUP, started);
    long dead = result.deadDeleted();
    long inbox = result.inboxDeleted();
    if (dead > 0) {
      events.emit(l -> l.cleanedUp(SchemaNames.OUTBOX_DEAD, dead));
    }
    if (inbox > 0) {
      events.emit(l -> l.cleanedUp(SchemaNames.INBOX, inbox));
    }
    return result;
  }

  /**
   * Runs one cleanup run on the calling thread, whether or not it is due: batches of {@code
   * cleanupBatchSize} until both tables come back short or {@code cleanupBudget} has passed.
   */
  public CleanupResult cleanupOnce() {
    return clean(clock.instant(), () -> false, RelayerMaintenance::sleep);
  }

  /** A pause of the loop's cleanup: ends early, and ends the run, when the loop is stopped. */
  private boolean awaitUnlessStopped(Duration pause) {
    return !work.awaitStop(pause);
  }

  /** A pause of {@link #cleanupOnce()}: ends the run only when the thread is interrupted. */
  private static boolean sleep(Duration pause) {
    try {
      TimeUnit.NANOSECONDS.sleep(pause.toNanos());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Whether this instance held the sweeper lease at its last pass. */
  public boolean leadsSweeper() {
    return leases.holds(Sweeper.LEASE);
  }

  /** Stops the loop, waits for a running pass (bounded), releases held leases. Safe twice. */
  @Override
  public void close() {
    if (!work.stop()) {
      return;
    }
    work.drain(options.shutdownTimeout());
    // The first release that fails ends the releases: the database did not answer, and another
    // try would wait out the pool's connection timeout again. What is left expires on its own.
    List<String> held = new ArrayList<>(leases.held());
    for (int i = 0; i < held.size(); i++) {
      try {
        String name = held.get(i);
        // Its own transaction: a pool whose connections do not auto-commit would roll it back.
        dsl.transaction(tx -> Passes.of(store).leases().release(tx.dsl(), name, owner));
        leases.released(name, owner);
      } catch (RuntimeException e) {
        log.warn(
            "store={} could not release leases {}; they will expire",
            store.displayName(),
            held.subList(i, held.size()),
            e);
        break;
      }
    }
    log.info("Relayer maintenance stopped: store={} owner={}", store.displayName(), owner);
  }
}
