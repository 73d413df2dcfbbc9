package dev.relayer.dispatch;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.message.MessageRoute;
import dev.relayer.api.spi.MessageSerializer;
import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.internal.Durations;
import dev.relayer.dispatch.internal.KnownTransports;
import dev.relayer.dispatch.internal.PoolSize;
import dev.relayer.dispatch.internal.TypedMessages;
import dev.relayer.dispatch.message.MessageTypes;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.TransactionListener;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relayer for one schema and prefix, in one object: the store, direct dispatch, maintenance
 * (sweeper and cleanup), ordered lanes, the operator actions, health, and the transports.
 *
 * <pre>{@code
 * try (Relayer relayer = Relayer.builder(dataSource).transport(rabbit).build()) {
 *   relayer.start();
 *   relayer.dsl().transaction(tx -> {
 *     // business writes ...
 *     relayer.store().enqueue(tx.dsl(), message); // or relayer.publish(tx.dsl(), event)
 *   }); // after the commit, a worker claims, sends and deletes the row
 * }
 * }</pre>
 *
 * <h2>Parts</h2>
 *
 * With at least one transport, a Relayer runs direct dispatch, maintenance and lanes (each with its
 * default options unless given others); {@link Builder#withoutMaintenance()} and {@link
 * Builder#withoutLanes()} leave those out (maintenance then has to run in another instance, and
 * ordered messages are sent only by instances that run lanes). Without any transport it only
 * writes: {@link #store()}, {@link #operator()} and {@link #health()} work, {@link #start()} starts
 * no thread, and nothing is handed over at commit — other instances' sweepers deliver its unordered
 * rows after their {@code recoveryDelay}, their lanes its ordered ones.
 *
 * <h2>Transport names</h2>
 *
 * Every message enqueued through {@link #store()} must name a transport this Relayer knows: one
 * registered with {@link Builder#transport} or {@link Builder#sharedTransport}, or one named with
 * {@link Builder#externalTransports} (delivered by other instances, which register it). Any other
 * name makes the enqueue throw {@link InvalidInputException} naming it and the known ones, and
 * nothing is written: no instance here could send the row, and a typo would otherwise surface only
 * as a dead {@code unknown-transport} row after {@code maxAttempts} retries. So a writer-only
 * Relayer (no transport) refuses every enqueue until it names the transports other instances
 * deliver, or turns the check off with {@link Builder#acceptAnyTransport()}. The check holds in
 * every state, closed included.
 *
 * <h2>Lifecycle</h2>
 *
 * <ul>
 *   <li>{@link #start()} checks the schema ({@link RelayerStore#verifySchema}), then starts direct
 *       dispatch, maintenance and lanes, in this order; it is idempotent. When the check fails —
 *       tables missing ({@link dev.relayer.api.SchemaMismatchException} naming the first missing
 *       object), database unreachable — nothing has started and {@code start()} may be called
 *       again. When a part fails to start after the check passed (the database lost in between),
 *       {@code start()} closes every part, stopping those that had started, closes the owned
 *       transports, and rethrows: this Relayer is then closed.
 *   <li>{@link #close()} stops lanes, then maintenance, then direct dispatch — each stops taking
 *       work, waits up to its {@code shutdownTimeout} for running passes and sends, and releases
 *       its leases — and then closes the transports this Relayer owns, once nothing sends through
 *       them any more. It is idempotent, safe before {@code start()} and after a failed one. A part
 *       or transport that fails to close does not keep the others open: the first failure is thrown
 *       once everything was closed, with the others suppressed.
 *   <li>A closed Relayer cannot be started again ({@link IllegalStateException}); build a new one.
 * </ul>
 *
 * <h2>Ownership</h2>
 *
 * A transport given with {@link Builder#transport(Transport)} belongs to the Relayer from that call
 * on: {@link #close()} closes it, and so does a {@link Builder#build()} that fails. One given with
 * {@link Builder#sharedTransport(Transport)} stays its caller's (a transport shared with other
 * code, or managed by a container): the Relayer sends through it and never closes it; close it
 * after the Relayer. The {@code DataSource} or {@code DSLContext} is always the caller's, never
 * closed here.
 *
 * <h2>After close</h2>
 *
 * {@link #store()}, {@link #operator()}, {@link #health()} and {@link #dsl()} only run statements
 * on the caller's database and keep working in every state, so a request still in flight during
 * shutdown can commit its messages: they stay in the outbox, and the sweeper of a running instance
 * (or of this one after a restart) delivers them after {@code recoveryDelay}. Hand-offs after close
 * ({@link #afterCommit}, or a commit seen by {@link #transactionListener()}) are dropped for the
 * same reason. Ids handed over before {@link #start()} wait in the queue and go out once started.
 *
 * <p>Thread-safe. The components ({@link RelayerDispatcher}, {@link RelayerMaintenance}, {@link
 * RelayerLanes}, {@link RelayerOperator}, {@link RelayerHealth}) stay usable on their own for
 * setups this class does not cover.
 */
public final class Relayer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Relayer.class);

  private enum State {
    NEW,
    STARTED,
    CLOSED
  }

  private final RelayerStore store;
  private final DSLContext dsl;
  private final DSLContext appDsl;
  private final String owner;
  private final @Nullable RelayerDispatcher dispatcher;
  private final @Nullable RelayerMaintenance maintenance;
  private final @Nullable RelayerLanes lanes;
  private final RelayerOperator operator;
  private final RelayerHealth health;
  private final TransactionListener listener;
  private final List<Transport> owned;
  private final TypedMessages typed;
  private final Object lifecycle = new Object();
  private volatile State state = State.NEW;
  private @Nullable RuntimeException failedStart;

  private Relayer(
      Builder builder,
      RelayerStore store,
      @Nullable RelayerDispatcher dispatcher,
      @Nullable RelayerMaintenance maintenance,
      @Nullable RelayerLanes lanes,
      RelayerHealth health) {
    this.store = store;
    this.dsl = builder.dsl;
    this.owner = builder.owner;
    this.dispatcher = dispatcher;
    this.maintenance = maintenance;
    this.lanes = lanes;
    this.health = health;
    this.operator = RelayerOperator.create(store, dsl, builder.clock, this::handOverReplayed);
    this.listener =
        dispatcher != null ? dispatcher.transactionListener() : new TransactionListener() {};
    this.appDsl = DSL.using(dsl.configuration().deriveAppending(listener));
    this.owned = List.copyOf(builder.owned);
    this.typed = new TypedMessages(builder.serializer, builder.messageTypes);
    if (!builder.acceptAnyTransport) {
      Set<String> registered = new TreeSet<>();
      builder.transports.forEach(t -> registered.add(t.name()));
      store.attach(new KnownTransports(registered, builder.externalTransports));
    }
  }

  /**
   * A builder over {@code dataSource} (usually the application's pool), used with jOOQ's {@link
   * SQLDialect#POSTGRES} dialect. The data source stays the caller's: Relayer never closes it.
   */
  public static Builder builder(DataSource dataSource) {
    if (dataSource == null) {
      throw new InvalidInputException("dataSource must not be null");
    }
    return new Builder(DSL.using(dataSource, SQLDialect.POSTGRES));
  }

  /**
   * A builder over {@code dsl}, whose connections Relayer uses for its own short transactions and
   * whose dialect must be of the {@link SQLDialect#POSTGRES} family.
   */
  public static Builder builder(DSLContext dsl) {
    if (dsl == null) {
      throw new InvalidInputException("dsl must not be null");
    }
    return new Builder(dsl);
  }

  /**
   * Checks the schema, then starts direct dispatch, maintenance and lanes (those this Relayer has);
   * idempotent. See the class documentation for what a failure leaves behind.
   *
   * @throws IllegalStateException when this Relayer was closed (also by a failed start)
   */
  public void start() {
    synchronized (lifecycle) {
      if (state == State.STARTED) {
        return;
      }
      if (state == State.CLOSED) {
        throw new IllegalStateException(
            "Relayer store="
                + store.displayName()
                + " is closed"
                + (failedStart != null ? " (its start failed: " + failedStart + ")" : "")
                + "; build a new one to start again",
            failedStart);
      }
      // Nothing runs yet: a failure here (missing table, database down) can be retried.
      store.verifySchema(dsl);
      try {
        if (dispatcher != null) {
          dispatcher.start();
        }
        if (maintenance != null) {
          maintenance.start();
        }
        if (lanes != null) {
          lanes.start();
        }
      } catch (RuntimeException | Error e) {
        log.error(
            "Relayer start failed: store={}; stopping what had started and closing",
            store.displayName(),
            e);
        state = State.CLOSED;
        failedStart = e instanceof RuntimeException r ? r : new IllegalStateException(e);
        RuntimeException closing = closeParts();
        if (closing != null) {
          e.addSuppressed(closing);
        }
        throw e;
      }
      state = State.STARTED;
      log.info(
          "Relayer started: store={} owner={} dispatch={} maintenance={} lanes={}",
          store.displayName(),
          owner,
          dispatcher != null,
          maintenance != null,
          lanes != null);
    }
  }

  /**
   * Stops lanes, maintenance and direct dispatch, in this order, then closes the owned transports;
   * idempotent, safe before start and after a failed start. See the class documentation.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
      RuntimeException failure = closeParts();
      log.info("Relayer closed: store={} owner={}", store.displayName(), owner);
      if (failure != null) {
        throw failure;
      }
    }
  }

  /** Closes every part and owned transport; the first failure, the rest suppressed, or null. */
  private @Nullable RuntimeException closeParts() {
    List<Throwable> failures = new ArrayList<>();
    // Lanes and maintenance send through the dispatcher's transports: stop them first.
    closeQuietly("lanes", lanes, failures);
    closeQuietly("maintenance", maintenance, failures);
    closeQuietly("dispatcher", dispatcher, failures);
    for (Transport transport : owned) {
      closeQuietly("transport '" + transport.name() + "'", transport, failures);
    }
    if (failures.isEmpty()) {
      return null;
    }
    RuntimeException first =
        failures.get(0) instanceof RuntimeException r
            ? r
            : new IllegalStateException("Relayer close failed", failures.get(0));
    failures.stream().skip(1).forEach(first::addSuppressed);
    return first;
  }

  private void closeQuietly(
      String part, @Nullable AutoCloseable closeable, List<Throwable> failures) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception | Error e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      log.warn("store={} could not close {}", store.displayName(), part, e);
      failures.add(e);
    }
  }

  /**
   * Enqueues {@code event} in the caller's transaction as a typed message: its message type and
   * route from its {@link dev.relayer.api.message.RelayerMessage} annotation or its {@link
   * MessageTypes} registration, its body and {@code content-type} header from the {@link
   * Builder#serializer serializer} (see the {@code dev.relayer.dispatch.message} package). Every
   * state, as {@link #store()}.
   *
   * <pre>{@code
   * relayer.dsl().transaction(tx -> {
   *   orders.insert(tx.dsl(), order);
   *   relayer.publish(tx.dsl(), new OrderPlaced(order.id(), order.total()));
   * });
   * }</pre>
   *
   * @param dsl the caller's transaction
   * @param event the object to send; its class needs a message type and a route
   * @return the outbox id
   * @throws InvalidInputException naming the class and what is missing (type, route, serializer) or
   *     why it cannot be serialized, or a null {@code dsl} or {@code event}; nothing is written and
   *     the transaction stays usable
   */
  public long publish(DSLContext dsl, Object event) {
    Builder.present(dsl, "dsl");
    return store.enqueue(dsl, typed.message(event, null));
  }

  /**
   * Enqueues {@code event} as {@link #publish} does, to {@code route} instead of the route its
   * annotation or registration gives: the route given is the whole route (its ordering key and
   * tenant included). The message type still comes from the annotation or the registration.
   *
   * @param dsl the caller's transaction
   * @param event the object to send; its class needs a message type
   * @param route where it goes
   * @return the outbox id
   * @throws InvalidInputException as {@link #publish}, or when {@code route} is null
   */
  public long enqueue(DSLContext dsl, Object event, MessageRoute route) {
    Builder.present(dsl, "dsl");
    Builder.present(route, "route");
    return store.enqueue(dsl, typed.message(event, route));
  }

  /**
   * The store: {@code enqueue} in the application's transaction, {@code tryRecordInbox} in the
   * consumer's. Usable in every state (see the class documentation).
   */
  public RelayerStore store() {
    return store;
  }

  /**
   * The operator actions on parked keys and dead rows, run on this Relayer's database; replayed
   * unordered rows are handed to this Relayer's dispatcher once started. Every state.
   */
  public RelayerOperator operator() {
    return operator;
  }

  /** Replayed unordered rows, after their batch committed: as an application's commit's. */
  private void handOverReplayed(List<Long> ids) {
    RelayerDispatcher target = dispatcher;
    if (state != State.CLOSED && target != null) {
      target.afterCommit(ids);
    }
  }

  /**
   * Checks health now (six statements; see {@link RelayerHealth}), with the thresholds set by
   * {@link Builder#health}, this Relayer's maintenance {@code recoveryDelay} and, when it
   * dispatches, this process's sends per transport. Every state.
   */
  public HealthReport health() {
    return health.check(dsl);
  }

  /**
   * The jOOQ listener that hands a transaction's enqueued ids over after it commits; install it on
   * the application's configuration ({@code configuration.deriveAppending(listener)}), or use
   * {@link #dsl()}. Without transports it does nothing.
   */
  public TransactionListener transactionListener() {
    return listener;
  }

  /**
   * A {@code DSLContext} over the connections given to the builder with {@link
   * #transactionListener()} installed: transactions run with it hand their messages over on commit.
   */
  public DSLContext dsl() {
    return appDsl;
  }

  /**
   * Hands over ids written by a transaction that has committed, for applications whose transactions
   * jOOQ does not manage (call it from the transaction manager's after-commit hook). Never blocks:
   * when the queue is full the ids are left to the sweeper. Before {@link #start()} they wait in
   * the queue; after {@link #close()}, and without transports, they are dropped (see the class
   * documentation).
   *
   * @param ids the ids {@code enqueue} returned; positive, none null
   * @throws InvalidInputException naming a null collection, a null or a non-positive id
   */
  public void afterCommit(Collection<Long> ids) {
    List<String> problems = idProblems(ids);
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
    // Not under the lifecycle lock: a hand-off never waits for a start or close in progress.
    if (state == State.CLOSED || dispatcher == null) {
      return;
    }
    dispatcher.afterCommit(ids);
  }

  /**
   * Hands over what a committed transaction wrote, for transaction managers that learn it from an
   * {@link dev.relayer.store.EnqueueListener} on {@link #store()}: the unordered ids as {@link
   * #afterCommit(Collection)} does, and the lanes that received ordered rows, whose owners are then
   * woken at once (in this process directly, in others through the dispatcher's notifier) instead
   * of at their next poll. Never blocks; same states as {@link #afterCommit(Collection)}.
   *
   * @param ids the unordered ids the transaction wrote; positive, none null
   * @param lanes the lanes of its ordered rows; each in {@code [0, laneCount)}
   * @throws InvalidInputException naming a null collection, a bad id or a lane out of range
   */
  public void afterCommit(Collection<Long> ids, Collection<Integer> lanes) {
    List<String> problems = idProblems(ids);
    if (lanes == null) {
      problems.add("lanes must not be null");
    } else {
      int laneCount = store.options().laneCount();
      int index = 0;
      for (Integer lane : lanes) {
        if (lane == null) {
          problems.add("lanes[" + index + "] must not be null");
        } else if (lane < 0 || lane >= laneCount) {
          problems.add(
              "lanes[" + index + "] must be between 0 and " + (laneCount - 1) + ", was " + lane);
        }
        index++;
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
    if (state == State.CLOSED || dispatcher == null) {
      return;
    }
    dispatcher.afterCommit(ids, Set.copyOf(lanes));
  }

  private static List<String> idProblems(Collection<Long> ids) {
    List<String> problems = new ArrayList<>();
    if (ids == null) {
      problems.add("ids must not be null");
      return problems;
    }
    int index = 0;
    for (Long id : ids) {
      if (id == null) {
        problems.add("ids[" + index + "] must not be null");
      } else if (id < 1) {
        problems.add("ids[" + index + "] must be a positive outbox id, was " + id);
      }
      index++;
    }
    return problems;
  }

  /**
   * Registers an event listener from now on, as {@link Builder#eventListener} does at build time
   * (see {@link RelayerDispatcher#addEventListener}). A Relayer without transports sends nothing
   * and reports no event: the listener is then kept by nothing.
   *
   * @throws InvalidInputException when {@code listener} is null
   */
  public void addEventListener(RelayerEventListener listener) {
    Builder.present(listener, "event listener");
    if (dispatcher != null) {
      dispatcher.addEventListener(listener);
    }
  }

  /** Unregisters a listener added with {@link #addEventListener} or the builder. */
  public void removeEventListener(RelayerEventListener listener) {
    if (dispatcher != null) {
      dispatcher.removeEventListener(listener);
    }
  }

  /**
   * Ids handed over after commit and waiting for a direct-dispatch worker ({@link
   * RelayerDispatcher#queuedIds()}); 0 without transports. Every state.
   */
  public int queuedIds() {
    return dispatcher == null ? 0 : dispatcher.queuedIds();
  }

  /** This instance's identity in the maintenance and lane leases. */
  public String owner() {
    return owner;
  }

  /** Builds a {@link Relayer}; every option has a default. */
  public static final class Builder {
    private final DSLContext dsl;
    private final List<Transport> transports = new ArrayList<>();
    private final List<Transport> owned = new ArrayList<>();
    private final List<RelayerEventListener> listeners = new ArrayList<>();
    private final Set<String> externalTransports = new LinkedHashSet<>();
    private final List<String> externalProblems = new ArrayList<>();
    private boolean acceptAnyTransport;
    private @Nullable String schema;
    private boolean schemaGiven;
    private @Nullable String prefix;
    private boolean prefixGiven;
    private @Nullable StoreOptions storeOptions;
    private @Nullable DispatchOptions dispatchOptions;
    private @Nullable MaintenanceOptions maintenanceOptions;
    private @Nullable LaneOptions laneOptions;
    private boolean withoutMaintenance;
    private boolean withoutLanes;
    private Consumer<RelayerHealth.Builder> healthSettings = h -> {};
    private @Nullable DataSource listenConnections;
    private String owner = RelayerMaintenance.defaultOwner();
    private Clock clock = Clock.systemUTC();
    private @Nullable MessageSerializer serializer;
    private MessageTypes messageTypes = MessageTypes.none();
    private boolean used;

    private Builder(DSLContext dsl) {
      this.dsl = dsl;
    }

    /** Schema of the tables; default {@code public}. */
    public Builder schema(String schema) {
      this.schema = schema;
      this.schemaGiven = true;
      return this;
    }

    /** Prefix of the table names; default {@code relayer_}; {@code ""} for none. */
    public Builder prefix(String prefix) {
      this.prefix = prefix;
      this.prefixGiven = true;
      return this;
    }

    /**
     * Store options (schema and prefix, lane count, lane notifications); default {@link
     * StoreOptions#defaults()}. {@link #schema} and {@link #prefix}, when also given, must agree
     * with them.
     */
    public Builder store(StoreOptions options) {
      this.storeOptions = present(options, "store options");
      return this;
    }

    /**
     * Registers a transport that this Relayer owns from now on: {@link Relayer#close()} closes it
     * after everything that sends through it stopped, and a {@link #build()} that fails closes it
     * too. Names must be non-blank and unique.
     */
    public Builder transport(Transport transport) {
      present(transport, "transport");
      transports.add(transport);
      owned.add(transport);
      return this;
    }

    /**
     * Registers a transport that stays its caller's: this Relayer sends through it and never closes
     * it. Close it after the Relayer.
     */
    public Builder sharedTransport(Transport transport) {
      transports.add(present(transport, "transport"));
      return this;
    }

    /**
     * Names transports that other instances deliver and this one only writes to: an enqueue naming
     * one of them is accepted although no transport of that name is registered here (see the class
     * documentation). May be called several times; default none. Names must be non-blank and must
     * not be registered here too.
     */
    public Builder externalTransports(String... names) {
      present(names, "external transport names");
      for (int i = 0; i < names.length; i++) {
        String name = names[i];
        if (name == null || name.isBlank()) {
          externalProblems.add(
              "externalTransports: name " + (i + 1) + " of " + names.length + " is blank");
        } else {
          externalTransports.add(name);
        }
      }
      return this;
    }

    /**
     * Turns the transport-name check off: an enqueue through this Relayer writes a row for any
     * transport name, known or not, and a row that no instance can send goes dead as {@code
     * unknown-transport} after its attempts. For a writer-only process that cannot list the
     * transports its messages name; prefer {@link #externalTransports}, which still catches typos.
     * Default: the check is on.
     */
    public Builder acceptAnyTransport() {
      this.acceptAnyTransport = true;
      return this;
    }

    /**
     * Dispatch options: direct dispatch, and the sends, retries and attempts of maintenance and
     * lanes too; default {@link DispatchOptions#defaults()}.
     */
    public Builder dispatch(DispatchOptions options) {
      this.dispatchOptions = present(options, "dispatch options");
      return this;
    }

    /** Maintenance options; default {@link MaintenanceOptions#defaults()}. */
    public Builder maintenance(MaintenanceOptions options) {
      this.maintenanceOptions = present(options, "maintenance options");
      return this;
    }

    /** Leaves maintenance out: another instance must run it (it recovers lost hand-offs). */
    public Builder withoutMaintenance() {
      this.withoutMaintenance = true;
      return this;
    }

    /** Lane options; default {@link LaneOptions#defaults()}. */
    public Builder lanes(LaneOptions options) {
      this.laneOptions = present(options, "lane options");
      return this;
    }

    /** Leaves lanes out: ordered messages are then sent only by instances that run lanes. */
    public Builder withoutLanes() {
      this.withoutLanes = true;
      return this;
    }

    /**
     * Where the lanes' listening connection comes from; default the builder's data source or
     * context. See {@link RelayerLanes.Builder#listenConnections}.
     *
     * <p>Without it, on a pool of a single connection (HikariCP's {@code maximumPoolSize=1}, or the
     * same setting of Commons DBCP 2, Tomcat JDBC or c3p0), the lanes do not listen: a listening
     * connection would hold the only one. They poll every {@code pollInterval} instead (default 5
     * s, so an ordered message waits up to that long for another instance's lanes), and {@code
     * build()} logs that once at INFO. The application's work, direct dispatch, maintenance and
     * lane passes then take turns on the one connection.
     */
    public Builder listenConnections(DataSource dataSource) {
      this.listenConnections = present(dataSource, "listen data source");
      return this;
    }

    /**
     * Health thresholds: {@code settings} receives a {@link RelayerHealth.Builder} already given
     * this Relayer's clock, its maintenance {@code recoveryDelay} and, when it dispatches, its
     * dispatcher.
     */
    public Builder health(Consumer<RelayerHealth.Builder> settings) {
      this.healthSettings = present(settings, "health settings");
      return this;
    }

    /**
     * This instance's identity in the maintenance and lane leases; default {@code host/pid/random}.
     * It must be unique among live instances.
     */
    public Builder owner(String owner) {
      this.owner = owner;
      return this;
    }

    /**
     * The UTC clock of claims, retry times, dead-letter stamps and health; default the system's.
     */
    public Builder clock(Clock clock) {
      this.clock = present(clock, "clock");
      return this;
    }

    /**
     * The serializer of typed messages ({@link Relayer#publish}, {@link Relayer#enqueue(DSLContext,
     * Object, MessageRoute)}), for example {@code JacksonMessageSerializer.create()} from {@code
     * relayer-jackson}; default none: typed enqueues are refused, naming this method.
     */
    public Builder serializer(MessageSerializer serializer) {
      this.serializer = present(serializer, "serializer");
      return this;
    }

    /**
     * Message types and routes registered in code, beside the {@link
     * dev.relayer.api.message.RelayerMessage} annotation; default {@link MessageTypes#none()}.
     */
    public Builder messageTypes(MessageTypes types) {
      this.messageTypes = present(types, "message types");
      return this;
    }

    /** Adds a listener told about sends, failures, dead and parked rows and leases. */
    public Builder eventListener(RelayerEventListener listener) {
      listeners.add(present(listener, "event listener"));
      return this;
    }

    /**
     * Validates everything and builds the Relayer (nothing runs until {@link Relayer#start()}).
     *
     * @throws InvalidInputException listing every problem; the owned transports are then closed
     * @throws IllegalStateException when this builder was built already: the transports it owns
     *     belong to the first Relayer (or were closed by the failed build)
     */
    public Relayer build() {
      if (used) {
        throw new IllegalStateException(
            "this Relayer.Builder was built already; the transports it owns went with that build:"
                + " use a new builder");
      }
      used = true;
      List<AutoCloseable> built = new ArrayList<>();
      try {
        return assemble(built);
      } catch (RuntimeException | Error e) {
        for (AutoCloseable part : built) {
          closeAfterFailedBuild(part, e);
        }
        for (Transport transport : owned) {
          closeAfterFailedBuild(transport, e);
        }
        throw e;
      }
    }

    /** {@code value}, or an {@link InvalidInputException} naming what was null. */
    private static <T> T present(T value, String what) {
      if (value == null) {
        throw new InvalidInputException(what + " must not be null");
      }
      return value;
    }

    private static void closeAfterFailedBuild(AutoCloseable closeable, Throwable cause) {
      try {
        closeable.close();
      } catch (Exception | Error e) {
        cause.addSuppressed(e);
      }
    }

    private Relayer assemble(List<AutoCloseable> built) {
      List<String> problems = new ArrayList<>();
      StoreOptions store = storeOptions(problems);
      if (dsl.dialect().family() != SQLDialect.POSTGRES) {
        problems.add("dsl dialect must be of the POSTGRES family, was " + dsl.dialect().getName());
      }
      if (owner == null || owner.isBlank()) {
        problems.add("owner must not be blank");
      }
      if (maintenanceOptions != null && withoutMaintenance) {
        problems.add("maintenance options were given, and withoutMaintenance(): choose one");
      }
      if (laneOptions != null && withoutLanes) {
        problems.add("lane options were given, and withoutLanes(): choose one");
      }
      problems.addAll(externalProblems);
      if (acceptAnyTransport && !externalTransports.isEmpty()) {
        problems.add(
            "externalTransports "
                + externalTransports
                + " were named, and acceptAnyTransport(): choose one");
      }
      for (Transport transport : transports) {
        if (externalTransports.contains(transport.name())) {
          problems.add(
              "transport '"
                  + transport.name()
                  + "' is registered here and named in externalTransports: choose one");
        }
      }
      if (listenConnections != null && withoutLanes) {
        problems.add("listenConnections is for lanes, and withoutLanes() was called");
      }
      if (transports.isEmpty()) {
        List<String> parts = new ArrayList<>();
        if (dispatchOptions != null) {
          parts.add("dispatch");
        }
        if (maintenanceOptions != null) {
          parts.add("maintenance");
        }
        if (laneOptions != null) {
          parts.add("lane");
        }
        if (listenConnections != null) {
          parts.add("listenConnections");
        }
        if (!parts.isEmpty()) {
          problems.add(
              String.join(", ", parts)
                  + " options were given but no transport was registered: a Relayer without"
                  + " transports only enqueues; register a transport to deliver");
        }
      }
      if (store == null) {
        throw new InvalidInputException(problems);
      }
      RelayerStore relayerStore = RelayerStore.create(store);
      MaintenanceOptions maintenance =
          maintenanceOptions != null ? maintenanceOptions : MaintenanceOptions.defaults();
      RelayerHealth.Builder health =
          RelayerHealth.builder(relayerStore)
              .clock(clock)
              .recoveryDelay(maintenance.recoveryDelay());
      RelayerDispatcher dispatcher = null;
      RelayerMaintenance maintainer = null;
      RelayerLanes laneRunner = null;
      if (!transports.isEmpty()) {
        // The parts check their own rules; gather their problems with the builder's.
        try {
          RelayerDispatcher.Builder dispatch =
              RelayerDispatcher.builder(relayerStore, dsl)
                  .options(dispatchOptions != null ? dispatchOptions : DispatchOptions.defaults())
                  .clock(clock);
          transports.forEach(dispatch::transport);
          listeners.forEach(dispatch::eventListener);
          dispatcher = dispatch.build();
          built.add(dispatcher);
          health.dispatcher(dispatcher);
        } catch (InvalidInputException e) {
          problems.addAll(e.problems());
        }
        if (dispatcher != null && !withoutMaintenance) {
          try {
            maintainer = RelayerMaintenance.create(dispatcher, maintenance, owner);
            built.add(0, maintainer);
          } catch (InvalidInputException e) {
            problems.addAll(e.problems());
          }
        }
        if (dispatcher != null && !withoutLanes && problems.isEmpty()) {
          RelayerLanes.Builder lanes =
              RelayerLanes.builder(dispatcher).options(laneOptions(relayerStore)).owner(owner);
          if (listenConnections != null) {
            lanes.listenConnections(listenConnections);
          }
          laneRunner = lanes.build();
          built.add(0, laneRunner);
        }
      }
      RelayerHealth checks = null;
      try {
        healthSettings.accept(health);
        checks = health.build();
      } catch (InvalidInputException e) {
        problems.addAll(e.problems());
      }
      if (!problems.isEmpty()) {
        throw new InvalidInputException(problems);
      }
      // No problems: the health checks were built.
      return new Relayer(
          this, relayerStore, dispatcher, maintainer, laneRunner, Objects.requireNonNull(checks));
    }

    /**
     * The lane options given, or the defaults; with {@code listen} off when the lanes would listen
     * on a connection of the application's pool and that pool has a single connection: holding it
     * would starve every other statement, so the lanes poll every {@code pollInterval} instead.
     */
    private LaneOptions laneOptions(RelayerStore store) {
      LaneOptions options = laneOptions != null ? laneOptions : LaneOptions.defaults();
      if (!options.listen() || listenConnections != null || PoolSize.of(dsl).orElse(2) > 1) {
        return options;
      }
      log.info(
          "store={} the pool has a single connection: the lanes poll every {} instead of holding"
              + " it to LISTEN; give listenConnections(...) a data source of its own to wake them"
              + " at once",
          store.displayName(),
          Durations.format(options.pollInterval()));
      return new LaneOptions(
          options.pollInterval(),
          options.leaseDuration(),
          options.keysPerPass(),
          options.rowsPerKey(),
          options.claimsPerPass(),
          options.threads(),
          false,
          options.reconnectDelay(),
          options.shutdownTimeout());
    }

    /** The store options, or null (with the problems added) when they are invalid. */
    private @Nullable StoreOptions storeOptions(List<String> problems) {
      StoreOptions base = storeOptions != null ? storeOptions : StoreOptions.defaults();
      if (!schemaGiven && !prefixGiven) {
        return base;
      }
      SchemaOptions given;
      try {
        given =
            SchemaOptions.of(
                schemaGiven ? schema : base.schema().schema(),
                prefixGiven ? prefix : base.schema().tablePrefix());
      } catch (InvalidInputException e) {
        problems.addAll(e.problems());
        return null;
      }
      if (storeOptions != null && !given.equals(storeOptions.schema())) {
        problems.add(
            "schema and prefix ("
                + given
                + ") differ from those of the store options ("
                + storeOptions.schema()
                + "): give them once");
        return null;
      }
      return new StoreOptions(given, base.laneCount(), base.laneNotifications());
    }
  }
}
