package dev.relayer.transport.rabbitmq;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback port where no broker answers: it accepts each connection and closes it at once, as a
 * node going down does, and counts them, so a test can tell that a client tried it. Its accepting
 * thread is a daemon named {@code relayer-hang-up-port}; {@link #close()} stops it.
 */
public final class HangUpPort implements AutoCloseable {

  private final ServerSocket socket;
  private final AtomicInteger connections = new AtomicInteger();

  private HangUpPort(ServerSocket socket) {
    this.socket = socket;
  }

  /** Listens on a free loopback port. */
  public static HangUpPort start() throws IOException {
    HangUpPort port = new HangUpPort(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    Thread thread = new Thread(port::accept, "relayer-hang-up-port");
    thread.setDaemon(true);
    thread.start();
    return port;
  }

  /** {@code 127.0.0.1:port}, as an address entry. */
  public String address() {
    return socket.getInetAddress().getHostAddress() + ":" + socket.getLocalPort();
  }

  /** How many connections it accepted and closed. */
  public int connections() {
    return connections.get();
  }

  private void accept() {
    while (!socket.isClosed()) {
      try (Socket accepted = socket.accept()) {
        connections.incrementAndGet();
      } catch (IOException e) {
        // closed by close(), or a client that went away first
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
