package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A process that enqueues one message, lets the broker (a file) accept it, and dies before Relayer
 * can delete the row — the crash window of at-least-once delivery.
 *
 * <p>Arguments: JDBC URL, user, file the "broker" appends accepted message ids to.
 */
public final class CrashAfterAcceptMain {

  private CrashAfterAcceptMain() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(args[0]);
    dataSource.setUser(args[1]);
    Path broker = Path.of(args[2]);
    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    RelayerStore store = RelayerStore.create(StoreOptions.defaults());
    Transport fileBroker =
        new Transport() {
          @Override
          public String name() {
            return "file";
          }

          @Override
          public int maxBatchSize() {
            return 10;
          }

          @Override
          public List<SendResult> send(TransportBatch batch) throws Exception {
            StringBuilder ids = new StringBuilder();
            batch.messages().forEach(m -> ids.append(m.messageId()).append('\n'));
            Files.writeString(
                broker, ids, UTF_8, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
            // Accepted by the broker; the process dies before the fenced delete.
            Runtime.getRuntime().halt(137);
            return List.of();
          }
        };
    RelayerDispatcher dispatcher =
        RelayerDispatcher.builder(store, dsl)
            .transport(fileBroker)
            .options(
                DispatchOptions.builder()
                    .claimDuration(Duration.ofSeconds(10))
                    .sendTimeout(Duration.ofSeconds(5))
                    .build())
            .build();
    dispatcher.start();
    DSLContext app =
        DSL.using(dsl.configuration().deriveAppending(dispatcher.transactionListener()));
    app.transaction(
        tx ->
            store.enqueue(
                tx.dsl(),
                NewMessage.builder()
                    .transport("file")
                    .destination("orders")
                    .messageType("OrderPlaced")
                    .body("{\"orderId\":7}".getBytes(UTF_8))
                    .build()));
    TimeUnit.MINUTES.sleep(2);
    System.exit(3); // never reached when the dispatcher works
  }
}
