package dev.relayer.spring.boot;

import dev.relayer.inbox.IncomingMessage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * What the guarded listeners of the inbox tests did: each call, in order, and the row each wrote to
 * {@code billed} in the guard's transaction; {@link #failNext} makes that many calls throw after
 * their write, so the guard must roll it back.
 */
final class BillingLedger {

  final List<IncomingMessage> calls = new CopyOnWriteArrayList<>();
  final List<String> tenantHeaders = new CopyOnWriteArrayList<>();
  final AtomicInteger failNext = new AtomicInteger();

  /** Records the call, writes its {@code billed} row, then throws when a failure is due. */
  void bill(DSLContext dsl, IncomingMessage incoming) {
    calls.add(incoming);
    dsl.insertInto(DSL.table(DSL.name("billed")))
        .columns(
            DSL.field(DSL.name("message_id")),
            DSL.field(DSL.name("message_type")),
            DSL.field(DSL.name("tenant_id")))
        .values(incoming.messageId(), incoming.messageType(), incoming.tenantId())
        .execute();
    if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new IllegalStateException("billing is down (test)");
    }
  }
}
