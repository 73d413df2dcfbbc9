package dev.relayer.bench.relayer;

import dev.relayer.api.spi.Transport;
import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Payload;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.dispatch.RelayerLanes;
import dev.relayer.dispatch.RelayerMaintenance;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Relayer as the benchmarks run it: a {@link RelayerStore} with default schema options, a jOOQ
 * {@link DSLContext} over the scenario's pool, a {@link RelayerDispatcher} with the {@link
 * ProbeTransport}, and optionally {@link RelayerMaintenance}. Options are Relayer's defaults except
 * where the command line says otherwise ({@code --relayer-workers}, {@code --claim-batch}) or a
 * scenario needs more room (see the factory methods).
 */
final class RelayerRig implements AutoCloseable {

  private final RelayerStore store;
  private final DSLContext dsl;
  private final RelayerDispatcher dispatcher;
  private final DSLContext app;

  // One per instance on purpose: its CommitProbe reads what this instance's producers set.
  @SuppressWarnings("ThreadLocalUsage")
  private final ThreadLocal<long[]> committing = new ThreadLocal<>();

  private final String transportName;
  private RelayerMaintenance maintenance;
  private RelayerLanes lanes;

  private RelayerRig(DataSource dataSource, DeliveryProbe probe, DispatchOptions options) {
    this(dataSource, probe, options, new ProbeTransport(probe, 1000));
  }

  private RelayerRig(
      DataSource dataSource, DeliveryProbe probe, DispatchOptions options, Transport transport) {
    this(StoreOptions.defaults(), dataSource, probe, options, transport);
  }

  private RelayerRig(
      StoreOptions storeOptions,
      DataSource dataSource,
      DeliveryProbe probe,
      DispatchOptions options,
      Transport transport) {
    this.store = RelayerStore.create(storeOptions);
    this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    this.transportName = transport.name();
    this.dispatcher =
        RelayerDispatcher.builder(store, dsl).transport(transport).options(options).build();
    // The probe's listener comes first, so the commit is timed before Relayer's hand-off.
    this.app =
        DSL.using(
            dsl.configuration()
                .deriveAppending(
                    new CommitProbe(committing, probe), dispatcher.transactionListener()));
  }

  /** A rig whose dispatcher is not started: for enqueue-only measurements. */
  static RelayerRig forEnqueue(DataSource dataSource, BenchOptions options) {
    return idle(dataSource, new DeliveryProbe(), options);
  }

  /**
   * A rig whose direct dispatch is not started (maintenance can still be started, and uses the
   * dispatcher's transports).
   */
  static RelayerRig idle(DataSource dataSource, DeliveryProbe probe, BenchOptions options) {
    return new RelayerRig(
        dataSource, probe, dispatchOptions(options, DispatchOptions.defaults().queueCapacity()));
  }

  /**
   * A rig with a started dispatcher whose queue holds {@code queueCapacity} ids (Relayer's default,
   * 10,000, unless a scenario feeds more at once).
   */
  /**
   * A rig over a store with {@code storeOptions} whose dispatcher is started (Relayer's default
   * queue capacity): for ordered enqueues, whose lane notifications only a started dispatcher
   * sends.
   */
  static RelayerRig startedWithStore(
      StoreOptions storeOptions, DataSource dataSource, BenchOptions options) {
    DeliveryProbe probe = new DeliveryProbe();
    RelayerRig rig =
        new RelayerRig(
            storeOptions,
            dataSource,
            probe,
            dispatchOptions(options, DispatchOptions.defaults().queueCapacity()),
            new ProbeTransport(probe, 1000));
    rig.dispatcher.start();
    return rig;
  }

  static RelayerRig started(
      DataSource dataSource, DeliveryProbe probe, BenchOptions options, int queueCapacity) {
    RelayerRig rig = new RelayerRig(dataSource, probe, dispatchOptions(options, queueCapacity));
    rig.dispatcher.start();
    return rig;
  }

  /**
   * A rig with a started dispatcher sending through {@code transport} (which reports to {@code
   * probe} itself), with Relayer's default queue capacity.
   */
  static RelayerRig startedWith(
      DataSource dataSource, DeliveryProbe probe, BenchOptions options, Transport transport) {
    RelayerRig rig =
        new RelayerRig(
            dataSource,
            probe,
            dispatchOptions(options, DispatchOptions.defaults().queueCapacity()),
            transport);
    rig.dispatcher.start();
    return rig;
  }

  /** Builds and starts {@link RelayerLanes} over the dispatcher with {@code options}. */
  void startLanes(LaneOptions options) {
    lanes = RelayerLanes.builder(dispatcher).options(options).build();
    lanes.start();
  }

  /** Starts maintenance (sweeper and cleanup) with {@code options}. */
  void startMaintenance(MaintenanceOptions options) {
    maintenance = RelayerMaintenance.create(dispatcher, options);
    maintenance.start();
  }

  RelayerStore store() {
    return store;
  }

  RelayerDispatcher dispatcher() {
    return dispatcher;
  }

  /** The application's jOOQ context: Relayer's after-commit hand-off installed. */
  DSLContext app() {
    return app;
  }

  /**
   * One application transaction enqueueing one message with {@code seq}; the probe hears of the
   * commit from a transaction listener that runs before Relayer's hand-off.
   */
  void produce(long seq) {
    produce(seq, null);
  }

  /**
   * As {@link #produce(long)}, with the ordering key {@code orderingKey} ({@code null}: unordered)
   * and the rig's transport.
   */
  void produce(long seq, String orderingKey) {
    committing.set(new long[] {seq});
    try {
      app.transaction(
          tx ->
              store.enqueue(
                  tx.dsl(), message(seq, orderingKey, transportName, Payload.DESTINATION)));
    } finally {
      committing.remove();
    }
  }

  /**
   * One application transaction enqueueing {@code count} untimed messages to {@code destination}.
   */
  void produceUntimed(int count, String destination) {
    app.transaction(
        tx -> {
          for (int i = 0; i < count; i++) {
            store.enqueue(tx.dsl(), message(-1, null, transportName, destination));
          }
        });
  }

  /** The benchmark payload as a Relayer message; timed ones carry {@code seq} in a header. */
  static NewMessage message(long seq) {
    return message(seq, null, Payload.TRANSPORT, Payload.DESTINATION);
  }

  /** The benchmark payload with an ordering key ({@code null}: unordered) and a transport. */
  static NewMessage message(long seq, String orderingKey, String transport, String destination) {
    NewMessage.Builder builder =
        NewMessage.builder()
            .transport(transport)
            .destination(destination)
            .messageType(Payload.MESSAGE_TYPE)
            .headers(Payload.headers())
            .body(Payload.body());
    if (orderingKey != null) {
      builder.orderingKey(orderingKey);
    }
    if (seq >= 0) {
      builder.header(ProbeTransport.SEQ_HEADER, Long.toString(seq));
    }
    return builder.build();
  }

  @Override
  public void close() {
    Optional.ofNullable(lanes).ifPresent(RelayerLanes::close);
    Optional.ofNullable(maintenance).ifPresent(RelayerMaintenance::close);
    dispatcher.close();
  }

  /** Relayer's default dispatch options with the command line's workers and claim batch. */
  static DispatchOptions dispatchOptions(BenchOptions options, int queueCapacity) {
    DispatchOptions.Builder builder = DispatchOptions.builder().queueCapacity(queueCapacity);
    options.relayerWorkers().ifPresent(builder::workers);
    options.claimBatch().ifPresent(builder::claimBatchSize);
    return builder.build();
  }
}
