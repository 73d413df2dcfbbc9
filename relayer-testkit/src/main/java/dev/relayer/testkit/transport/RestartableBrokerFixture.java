package dev.relayer.testkit.transport;

/**
 * A broker that {@link TransportContract} may take away from the transport and bring back: a
 * private broker process it kills and restarts, or a shared broker behind a {@link TcpProxy} it
 * cuts and restores. Messages stored before {@link #stop()} are still there after {@link #start()}.
 */
public interface RestartableBrokerFixture extends BrokerFixture {

  /** Makes the broker unreachable for the transports of this fixture; returns once it is. */
  void stop() throws Exception;

  /** Makes the broker reachable again; returns once it accepts connections. */
  void start() throws Exception;
}
