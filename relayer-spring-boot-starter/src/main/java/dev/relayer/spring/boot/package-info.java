/**
 * Spring Boot 4 auto-configuration for Relayer: one {@link dev.relayer.dispatch.Relayer} bean over
 * the application's {@code DataSource}, handed the messages of Spring-managed transactions after
 * they commit.
 *
 * <h2>Beans</h2>
 *
 * {@link dev.relayer.spring.boot.RelayerAutoConfiguration} runs after Spring Boot's data source,
 * transaction manager, transaction and jOOQ auto-configurations, when there is a single {@code
 * DataSource} and {@code relayer.enabled} is not {@code false}. It creates, each only when the
 * application has none of its type:
 *
 * <ul>
 *   <li>{@code Relayer}: built with {@code Relayer.builder(dataSource)} from the {@code relayer.*}
 *       properties ({@link dev.relayer.spring.boot.RelayerProperties}), every {@code
 *       dev.relayer.api.spi.Transport} bean registered as a <em>shared</em> transport (Spring
 *       created it and destroys it, after the Relayer that depends on it), then every {@link
 *       dev.relayer.spring.boot.RelayerBuilderCustomizer}. Relayer's own short transactions
 *       (claims, completions, sweeper and lane passes) run on the data source directly, on its own
 *       jOOQ context: never through Spring's transaction manager, so they never join, and are never
 *       rolled back with, an application transaction. Without a transport bean, or with {@code
 *       relayer.dispatch.enabled=false}, the Relayer only writes; {@code
 *       relayer.maintenance.enabled} and {@code relayer.lanes.enabled} leave those parts out
 *       ({@code withoutMaintenance()}, {@code withoutLanes()}); turning either on explicitly while
 *       dispatch is off fails start-up, since both send through the dispatcher's transports. An
 *       enqueue naming a transport that no bean registers fails at once unless {@code
 *       relayer.external-transports} lists it (delivered by other instances) or {@code
 *       relayer.accept-any-transport=true} turns the check off: a writer-only instance names the
 *       transports its messages go to.
 *   <li>{@link dev.relayer.spring.boot.SpringCommitHandoff}: the hand-off below.
 *   <li>{@link dev.relayer.spring.boot.RelayerLifecycle}: starts the Relayer with the context
 *       (checking the schema: a missing table fails start-up naming it) and closes it when the
 *       context stops, in a phase below the web server's, before any bean — the pool included — is
 *       destroyed, so leases are released while the pool is open.
 * </ul>
 *
 * {@link dev.relayer.spring.boot.RelayerHealthContributorAutoConfiguration} adds the {@code
 * relayer} health indicator when {@code spring-boot-health} is on the class path. {@link
 * dev.relayer.spring.boot.RelayerEndpointAutoConfiguration} adds the {@code relayer} actuator
 * endpoint when {@code spring-boot-actuator} is on the class path and the endpoint is available:
 * read-only ({@link dev.relayer.spring.boot.RelayerEndpoint}), or with the operator's actions on
 * parked keys ({@link dev.relayer.spring.boot.RelayerOperationsEndpoint}) when {@code
 * relayer.actuator.operations.enabled=true}. {@link
 * dev.relayer.spring.boot.RelayerMetricsAutoConfiguration} binds the Relayer's Micrometer meters
 * ({@code dev.relayer.micrometer.RelayerMetrics}) to the application's {@code MeterRegistry} when
 * {@code relayer-micrometer} is on the class path, and refreshes their gauges while the context
 * runs ({@code relayer.metrics.*}, {@link dev.relayer.spring.boot.RelayerMetricsProperties}). The
 * auto-configurations of {@code dev.relayer.spring.boot.transport} create {@code Transport} beans
 * from {@code relayer.rabbitmq.*}, {@code relayer.kafka.*} and {@code relayer.nats.*}; see that
 * package. {@code dev.relayer.spring.boot.tracing} traces the Relayer with the application's {@code
 * OpenTelemetry} bean ({@code relayer.tracing.*}) through two extension points of the {@code
 * Relayer} bean above: every {@link dev.relayer.spring.boot.RelayerTransportDecorator} wraps each
 * {@code Transport} bean before it is registered, and every {@code HeaderContributor} bean is
 * registered on its store. An application's own {@code Relayer} bean gets neither.
 *
 * <h2>The hand-off under Spring</h2>
 *
 * Under Spring Boot the injected {@code DSLContext} takes its connections from a transaction-aware
 * proxy of the data source and runs {@code dsl.transaction(...)} through {@code
 * SpringTransactionProvider}, which asks the transaction manager for {@code PROPAGATION_NESTED}:
 * inside a Spring transaction it is a savepoint. A jOOQ {@code TransactionListener} on that context
 * would see the savepoint's release as a commit — before the real one, when the rows are not yet
 * visible to the worker that claims them — and sees nothing at all when the application writes
 * through the injected context without {@code dsl.transaction}. So the starter does not rely on it:
 *
 * <ul>
 *   <li>{@link dev.relayer.spring.boot.SpringCommitHandoff} is an {@code EnqueueListener} on the
 *       Relayer's store. An enqueue on a thread with active Spring transaction synchronization adds
 *       its unordered ids and the lanes of its ordered rows to one pending hand-off per
 *       transaction: a transaction resource, registered as a {@code TransactionSynchronization}
 *       with the first enqueue. Spring calls its {@code afterCommit} once, after the outermost
 *       transaction commits, whichever way the code joined it ({@code @Transactional}, {@code
 *       TransactionTemplate}, the injected {@code DSLContext}, a nested {@code dsl.transaction});
 *       it hands both over with {@code Relayer.afterCommit(ids, lanes)}, so unordered rows go to
 *       direct dispatch and the lanes' owners are woken at once. A rollback of the outer
 *       transaction completes without {@code afterCommit}: nothing is handed over.
 *   <li>A {@code REQUIRES_NEW} transaction suspends the outer one: the pending hand-off is unbound
 *       with it ({@code suspend}/{@code resume}), so the inner transaction has its own, handed over
 *       at its own commit, and the outer's waits for the outer commit.
 *   <li>A rolled-back savepoint: Spring tells synchronizations nothing about savepoints, so the ids
 *       of the rows a savepoint undid stay in the transaction's hand-off and are handed over after
 *       the outer commit. <em>Decision:</em> they are left to the claim, which drops them, rather
 *       than tracked per savepoint level: direct dispatch claims by id only committed, pending
 *       rows, and an undone row does not exist; outbox ids come from an identity column, which
 *       never hands a number out twice, so an undone id can never name another row. Nothing is sent
 *       for undone rows; the cost is a few ids in one claim's {@code id = any(...)}. (Tracking per
 *       level would cover only jOOQ's nested transactions, not {@code @Transactional(propagation =
 *       NESTED)} or a {@code TransactionTemplate} with that propagation, which Spring never
 *       reports.)
 *   <li>Outside Spring transaction synchronization the listener does nothing: a transaction run
 *       with {@code relayer.dsl()} (the application's pool with Relayer's jOOQ listener, not joined
 *       to Spring's transactions) is handed over by that listener at its commit, as without Spring.
 *       Such a transaction run while a Spring transaction is open on the same thread is handed over
 *       twice, once by each; the second claim finds the rows sent or claimed and takes nothing.
 *       Autocommit enqueues outside any transaction are not handed over; the sweeper delivers them
 *       after {@code recoveryDelay}, as everywhere.
 *   <li>{@code afterCommit} never throws to the committed caller: a failed hand-off is logged and
 *       left to the sweeper.
 * </ul>
 */
@NullMarked
package dev.relayer.spring.boot;

import org.jspecify.annotations.NullMarked;
