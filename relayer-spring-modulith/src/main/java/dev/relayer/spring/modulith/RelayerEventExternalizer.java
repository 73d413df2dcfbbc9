package dev.relayer.spring.modulith;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.message.MessageRoute;
import dev.relayer.dispatch.Relayer;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.expression.EvaluationContext;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.RoutingTarget;
import org.springframework.modulith.events.support.BrokerRouting;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Writes each event that Spring Modulith's {@link EventExternalizationConfiguration} selects (by
 * default, those annotated {@code @Externalized}) as a Relayer message, synchronously, in the
 * transaction that publishes it: a rollback drops it, a commit hands it to Relayer's dispatcher.
 * See the package documentation for the mapping and for why this is an application listener and not
 * one of Modulith's externalizers.
 */
public final class RelayerEventExternalizer implements ApplicationListener<ApplicationEvent> {

  private final Relayer relayer;
  private final DSLContext dsl;
  private final EventExternalizationConfiguration configuration;
  private final String transport;
  private final EvaluationContext context;

  /**
   * @param relayer the Relayer whose serializer, message types and store write the messages
   * @param dsl the application's transaction-aware context (Spring Boot's jOOQ {@code DSLContext})
   * @param configuration Modulith's selection, mapping and routing of events
   * @param transport the transport every externalized event goes through
   * @param context evaluates SpEL in routing targets and keys ({@code #{...}}), as Modulith's own
   *     externalizers do
   */
  public RelayerEventExternalizer(
      Relayer relayer,
      DSLContext dsl,
      EventExternalizationConfiguration configuration,
      String transport,
      EvaluationContext context) {
    this.relayer = relayer;
    this.dsl = dsl;
    this.configuration = configuration;
    this.transport = transport;
    this.context = context;
  }

  /** The transport every externalized event goes through. */
  public String transport() {
    return transport;
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    Object payload = event instanceof PayloadApplicationEvent<?> p ? p.getPayload() : event;
    if (!configuration.supports(payload)) {
      return;
    }
    externalize(payload);
  }

  /**
   * Writes {@code event} as a Relayer message in the current transaction and returns its outbox id.
   *
   * @throws IllegalStateException when no transaction is active: the message would have no
   *     transaction to join
   * @throws InvalidInputException naming the class and what is missing (message type, serializer)
   *     or wrong (target, key); nothing is written
   */
  public long externalize(Object event) {
    String name = event.getClass().getName();
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalStateException(
          "@Externalized event "
              + name
              + " was published outside a transaction: Relayer writes it in the publishing"
              + " transaction, so publish it from a @Transactional method");
    }
    RoutingTarget target = configuration.determineTarget(event);
    BrokerRouting routing = BrokerRouting.of(target, context);
    String destination = routing.getTarget(event);
    // Modulith's SpEL routing falls back to the target as key; Relayer orders only by a key the
    // application names, so a target without key stays unordered.
    @Nullable String key = target.getKey() == null ? null : routing.getKey(event);
    MessageRoute route;
    try {
      route = new MessageRoute(transport, destination, key, null);
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.problems().stream()
              .map(p -> "cannot externalize " + name + " to " + target + ": " + p)
              .toList());
    }
    return relayer.enqueue(dsl, configuration.map(event), route);
  }
}
