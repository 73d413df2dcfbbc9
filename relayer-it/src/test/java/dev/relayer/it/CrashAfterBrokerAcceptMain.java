package dev.relayer.it;

import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.transport.kafka.KafkaTransport;
import dev.relayer.transport.nats.NatsTransport;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An application process that enqueues one {@link OrderPlaced} message in a jOOQ transaction with
 * the dispatcher's listener, lets a real broker accept it through the real transport, and dies
 * (exit 137, like SIGKILL) before the dispatcher can delete the row: the crash window of
 * at-least-once delivery.
 *
 * <p>Arguments: JDBC URL, user, transport ({@code rabbitmq}, {@code kafka} or {@code nats}), broker
 * address (AMQP URI, bootstrap servers, NATS URL), destination, message id. The password, if any,
 * comes from the environment variable {@value #PASSWORD_VARIABLE}. Exits 4 if the send failed (the
 * error on stderr) and 3 if nothing was sent within a minute.
 */
public final class CrashAfterBrokerAcceptMain {

  static final String PASSWORD_VARIABLE = "RELAYER_IT_PG_PASSWORD";

  /**
   * How long the dying process's claim holds the row, so roughly how long the survivor's sweeper
   * waits. Its send timeout is one second less: generous, because the first send of a cold client
   * in a fresh JVM on a busy machine can take seconds.
   */
  static final Duration CLAIM_DURATION = Duration.ofSeconds(8);

  private CrashAfterBrokerAcceptMain() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(args[0]);
    dataSource.setUser(args[1]);
    String password = System.getenv(PASSWORD_VARIABLE);
    if (password != null) {
      dataSource.setPassword(password);
    }
    String transport = args[2];
    String address = args[3];
    String destination = args[4];
    UUID messageId = UUID.fromString(args[5]);

    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    RelayerStore store = RelayerStore.create(StoreOptions.defaults());
    RelayerDispatcher dispatcher =
        RelayerDispatcher.builder(store, dsl)
            .transport(new DiesAfterAcceptance(open(transport, address)))
            .options(
                DispatchOptions.builder()
                    .claimDuration(CLAIM_DURATION)
                    .sendTimeout(CLAIM_DURATION.minusSeconds(1))
                    .build())
            .eventListener(
                new RelayerEventListener() {
                  @Override
                  public void failed(DeliveryEvent event, String error, Instant retryAt) {
                    System.err.println("the send failed: " + error);
                    System.err.flush();
                    Runtime.getRuntime().halt(4);
                  }
                })
            .build();
    dispatcher.start();
    DSLContext app =
        DSL.using(dsl.configuration().deriveAppending(dispatcher.transactionListener()));
    app.transaction(
        tx -> store.enqueue(tx.dsl(), OrderPlaced.message(transport, destination, messageId, 7)));
    TimeUnit.MINUTES.sleep(1);
    System.err.println("the dispatcher sent nothing within a minute");
    System.exit(3);
  }

  private static Transport open(String transport, String address) {
    return switch (transport) {
      case RabbitMqTransport.DEFAULT_NAME -> RabbitMqTransport.builder().uri(address).build();
      case KafkaTransport.DEFAULT_NAME -> {
        Properties producer = new Properties();
        producer.put("bootstrap.servers", address);
        producer.put("max.block.ms", "6000");
        yield KafkaTransport.builder().properties(producer).build();
      }
      case NatsTransport.DEFAULT_NAME -> NatsTransport.builder().url(address).build();
      default -> throw new IllegalArgumentException("unknown transport '" + transport + "'");
    };
  }

  /** The real transport; once the broker has accepted a batch, the process dies on the spot. */
  private static final class DiesAfterAcceptance implements Transport {

    private final Transport broker;

    DiesAfterAcceptance(Transport broker) {
      this.broker = broker;
    }

    @Override
    public String name() {
      return broker.name();
    }

    @Override
    public int maxBatchSize() {
      return broker.maxBatchSize();
    }

    @Override
    // This process's stderr is what the test that started it shows: no logger here.
    @SuppressWarnings("CatchAndPrintStackTrace")
    public List<SendResult> send(TransportBatch batch) {
      try {
        List<SendResult> results = broker.send(batch);
        if (results.stream().allMatch(SendResult::isAccepted)) {
          Runtime.getRuntime().halt(137); // accepted by the broker; the delete never happens
        }
        System.err.println("the broker did not accept the batch: " + results);
      } catch (Throwable e) {
        e.printStackTrace();
      }
      System.err.flush();
      Runtime.getRuntime().halt(4);
      return List.of();
    }
  }
}
