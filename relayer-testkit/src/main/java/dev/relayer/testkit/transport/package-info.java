/**
 * The contract every broker transport passes, and the broker fixtures it runs on. (The in-memory
 * transport for testing the dispatcher without a broker is {@code
 * dev.relayer.transport.memory.InMemoryTransport}, in {@code relayer-transport-memory}.)
 *
 * <p>{@link dev.relayer.testkit.transport.TransportContract} is an abstract JUnit 5 class. A
 * transport module's integration test extends it and supplies two {@link
 * dev.relayer.testkit.transport.BrokerFixture}s: one for the broker the everyday tests use and one
 * {@link dev.relayer.testkit.transport.RestartableBrokerFixture} the suite may stop and start. The
 * suite never fakes a broker: messages are read back by a real consumer of that broker.
 *
 * <p>What the suite checks, for every transport:
 *
 * <ul>
 *   <li>a batch is sent and every message is reported accepted, one result per message in order;
 *   <li>batches sent from several threads at once on one transport all arrive;
 *   <li>id, type, headers and body survive the trip to a real consumer;
 *   <li>a message with a tenant arrives with the header {@code relayer-tenant-id} ({@link
 *       dev.relayer.api.RelayerHeaders#TENANT_ID}); one without a tenant arrives without it, even
 *       when the application gave a header of that name;
 *   <li>a message the broker rejects fails on its own, for good or to be retried as the transport
 *       declares for its broker; its neighbours are accepted, unless the transport declares {@link
 *       dev.relayer.api.spi.Transport#preservesBatchOrder()}, in which case everything after the
 *       first failure fails (to be retried) and is not delivered;
 *   <li>a batch to a destination nothing routes to fails, message by message, for good or to be
 *       retried as the transport declares;
 *   <li>a destination the broker's naming rules forbid is rejected for good, and {@link
 *       dev.relayer.api.spi.Transport#problems} reports it naming the destination; ordinary
 *       messages have no problems;
 *   <li>with order declared, a batch arrives in batch order;
 *   <li>a broker that cannot be reached fails the batch within its timeout, with an error naming
 *       the broker's address, to be retried (never rejected for good);
 *   <li>a broker stopped mid-run fails batches within their timeout, to be retried, and once it is
 *       back the same transport instance sends again without being rebuilt;
 *   <li>{@code close()} delivers what was accepted, is safe twice, and a closed transport fails
 *       batches instead of hanging.
 * </ul>
 *
 * <p>Run the suite once per configuration that changes what the transport declares, for example
 * with and without ordered batches.
 *
 * <p>{@link dev.relayer.testkit.transport.TcpProxy} is a loopback forwarder that tests can cut and
 * restore, to take a shared broker "down" for one client without stopping it for anyone else;
 * {@link dev.relayer.testkit.transport.TcpProxy#startTls} also terminates TLS in front of it, with
 * the key and self-signed certificate of a {@link
 * dev.relayer.testkit.transport.SelfSignedCertificate}, which only a client given that certificate
 * trusts.
 */
@NullMarked
package dev.relayer.testkit.transport;

import org.jspecify.annotations.NullMarked;
