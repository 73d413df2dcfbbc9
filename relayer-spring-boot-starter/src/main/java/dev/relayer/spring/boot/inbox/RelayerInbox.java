package dev.relayer.spring.boot.inbox;

import dev.relayer.inbox.InboxGuard;
import dev.relayer.inbox.InboxHandler;
import dev.relayer.inbox.InboxResult;
import dev.relayer.inbox.IncomingMessage;
import dev.relayer.store.RelayerStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;

/**
 * The application's inbox guards, one per consumer name, on the application's {@code DSLContext}
 * (so each delivery runs in a Spring transaction), for listeners that do not use {@link
 * InboxGuarded}, such as a NATS JetStream subscription:
 *
 * <pre>{@code
 * NatsInbox billing = NatsInbox.of(relayerInbox.guard("billing"));
 * }</pre>
 */
public final class RelayerInbox {

  private final RelayerStore store;
  private final DSLContext dsl;
  private final Map<String, InboxGuard> guards = new ConcurrentHashMap<>();

  /**
   * @param store the store of the tables that hold the inbox
   * @param dsl the application's {@code DSLContext}, whose transactions are Spring transactions
   */
  public RelayerInbox(RelayerStore store, DSLContext dsl) {
    this.store = store;
    this.dsl = dsl;
  }

  /**
   * The guard of {@code consumer}.
   *
   * @throws dev.relayer.api.InvalidInputException when {@code consumer} is blank
   */
  public InboxGuard guard(String consumer) {
    InboxGuard guard = guards.get(consumer);
    return guard != null
        ? guard
        : guards.computeIfAbsent(consumer, name -> InboxGuard.create(store, dsl, name));
  }

  /**
   * Runs {@code handler} for a first delivery of {@code message} in {@code consumer}'s guard: for a
   * listener whose container settles the delivery from the method's outcome. Returns for a first
   * delivery and for a duplicate; throws the handler's exception after the rollback.
   */
  public InboxResult handle(String consumer, IncomingMessage message, InboxHandler handler) {
    return guard(consumer).handleOrThrow(message, handler);
  }
}
