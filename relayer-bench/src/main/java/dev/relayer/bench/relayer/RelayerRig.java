package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Payload;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.dispatch.RelayerMaintenance;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.TransactionContext;
import org.jooq.TransactionListener;
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
  private final DeliveryProbe probe;
  private final RelayerDispatcher dispatcher;
  private final DSLContext app;
  private final ThreadLocal<long[]> committing = new ThreadLocal<>();
  private RelayerMaintenance maintenance;

  private RelayerRig(DataSource dataSource, DeliveryProbe probe, DispatchOptions options) {
    this.store = RelayerStore.create(StoreOptions.defaults());
    this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    this.probe = probe;
    this.dispatcher =
        RelayerDispatcher.builder(store, dsl)
            .transport(new ProbeTransport(probe, 1000))
            .options(options)
            .build();
    // The probe's listener comes first, so the commit is timed before Relayer's hand-off.
    this.app =
        DSL.using(
            dsl.configuration()
                .deriveAppending(new CommitProbe(), dispatcher.transactionListener()));
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
  static RelayerRig started(
      DataSource dataSource, DeliveryProbe probe, BenchOptions options, int queueCapacity) {
    RelayerRig rig = new RelayerRig(dataSource, probe, dispatchOptions(options, queueCapacity));
    rig.dispatcher.start();
    return rig;
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
    committing.set(new long[] {seq});
    try {
      app.transaction(tx -> store.enqueue(tx.dsl(), message(seq)));
    } finally {
      committing.remove();
    }
  }

  /** The benchmark payload as a Relayer message; timed ones carry {@code seq} in a header. */
  static NewMessage message(long seq) {
    NewMessage.Builder builder =
        NewMessage.builder()
            .transport(Payload.TRANSPORT)
            .destination(Payload.DESTINATION)
            .messageType(Payload.MESSAGE_TYPE)
            .headers(Payload.headers())
            .body(Payload.body());
    if (seq >= 0) {
      builder.header(ProbeTransport.SEQ_HEADER, Long.toString(seq));
    }
    return builder.build();
  }

  @Override
  public void close() {
    Optional.ofNullable(maintenance).ifPresent(RelayerMaintenance::close);
    dispatcher.close();
  }

  private static DispatchOptions dispatchOptions(BenchOptions options, int queueCapacity) {
    DispatchOptions.Builder builder = DispatchOptions.builder().queueCapacity(queueCapacity);
    options.relayerWorkers().ifPresent(builder::workers);
    options.claimBatch().ifPresent(builder::claimBatchSize);
    return builder.build();
  }

  private final class CommitProbe implements TransactionListener {
    @Override
    public void commitEnd(TransactionContext ctx) {
      long[] seq = committing.get();
      if (seq != null) {
        probe.committed(seq[0]);
      }
    }
  }
}
