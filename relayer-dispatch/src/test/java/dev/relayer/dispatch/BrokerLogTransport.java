package dev.relayer.dispatch;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * A "broker" that outlives the processes sending to it: every accepted message is appended, in
 * acceptance order, to the table {@code broker_log} through its own auto-committed connection.
 * Keeps batch order; waits {@code delayMillis} per batch. Once it has accepted {@code hangAfter}
 * messages, each call hangs after recording its batch, as a sender stuck between the broker's
 * acknowledgement and its own bookkeeping: a process killed then dies mid-batch.
 */
final class BrokerLogTransport implements Transport {

  static final Table<?> LOG = DSL.table(DSL.name("public", "broker_log"));
  static final Field<Long> SEQ = DSL.field(DSL.name("seq"), Long.class);
  static final Field<UUID> MESSAGE_ID = DSL.field(DSL.name("message_id"), UUID.class);
  static final Field<String> ORDERING_KEY = DSL.field(DSL.name("ordering_key"), String.class);
  static final Field<String> SENDER = DSL.field(DSL.name("sender"), String.class);

  private final DSLContext broker;
  private final String sender;
  private final long delayMillis;
  private final int hangAfter;
  private final AtomicInteger accepted = new AtomicInteger();

  BrokerLogTransport(DataSource dataSource, String sender, long delayMillis, int hangAfter) {
    this.broker = DSL.using(dataSource, SQLDialect.POSTGRES);
    this.sender = sender;
    this.delayMillis = delayMillis;
    this.hangAfter = hangAfter;
  }

  /** Creates the log table. */
  // identity(boolean) is deprecated for removal in jOOQ 3.21; its replacement there,
  // generatedByDefaultAsIdentity(), is not in jOOQ 3.19.
  @SuppressWarnings("removal")
  static void create(DSLContext dsl) {
    dsl.createTable(LOG)
        .column("seq", org.jooq.impl.SQLDataType.BIGINT.identity(true))
        .column(MESSAGE_ID.getName(), org.jooq.impl.SQLDataType.UUID.notNull())
        .column(ORDERING_KEY.getName(), org.jooq.impl.SQLDataType.CLOB)
        .column(SENDER.getName(), org.jooq.impl.SQLDataType.CLOB.notNull())
        .execute();
  }

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public int maxBatchSize() {
    return 5;
  }

  @Override
  public boolean preservesBatchOrder() {
    return true;
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws Exception {
    Thread.sleep(delayMillis);
    var insert = broker.insertInto(LOG, MESSAGE_ID, ORDERING_KEY, SENDER);
    List<SendResult> results = new ArrayList<>();
    for (OutgoingMessage message : batch.messages()) {
      insert = insert.values(message.messageId(), message.orderingKey(), sender);
      results.add(SendResult.accepted());
    }
    insert.execute();
    if (accepted.addAndGet(results.size()) >= hangAfter) {
      Thread.sleep(Long.MAX_VALUE);
    }
    return results;
  }
}
