package dev.relayer.testkit.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ServerSocketFactory;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Forwards a loopback port to a broker, and can cut and restore the path: {@link #cut()} closes
 * every forwarded connection and stops listening, so clients see their connection drop and new
 * connections refused, exactly as if the broker had stopped; {@link #restore()} listens on the same
 * port again. The broker itself keeps running for everyone else.
 *
 * <p>{@link #stall()} makes a half-open partition instead: every connection, and every one opened
 * meanwhile, stays open but no byte crosses in either direction — as when a NAT entry times out or
 * a VM is paused — until {@link #heal()} forwards what waited.
 *
 * <p>Started with {@link #startTls}, it also terminates TLS: clients speak TLS to it, and it
 * forwards the plain bytes, as a TLS-terminating load balancer in front of a broker does.
 *
 * <p>Threads are daemons named {@code relayer-tcp-proxy-<role>-N}; {@link #close()} stops all of
 * them.
 */
public final class TcpProxy implements AutoCloseable {

  private static final AtomicInteger THREADS = new AtomicInteger();

  private final InetSocketAddress target;
  private final ServerSocketFactory listeners;
  private final Object lock = new Object();
  private final List<Socket> sockets = new ArrayList<>();
  private int port;
  private @Nullable ServerSocket listener;
  private boolean closed;
  private boolean stalled;

  private TcpProxy(InetSocketAddress target, ServerSocketFactory listeners) {
    this.target = target;
    this.listeners = listeners;
  }

  /** Starts forwarding a free loopback port to {@code host:port}. */
  public static TcpProxy start(String host, int port) {
    TcpProxy proxy =
        new TcpProxy(new InetSocketAddress(host, port), ServerSocketFactory.getDefault());
    proxy.restore();
    return proxy;
  }

  /**
   * Starts forwarding a free loopback port to {@code host:port}, speaking TLS on that port with
   * {@code server} (for example {@link SelfSignedCertificate#serverContext()}) and plain TCP to the
   * target.
   */
  public static TcpProxy startTls(SSLContext server, String host, int port) {
    TcpProxy proxy =
        new TcpProxy(new InetSocketAddress(host, port), server.getServerSocketFactory());
    proxy.restore();
    return proxy;
  }

  /**
   * The loopback port clients connect to; the same across {@link #cut()} and {@link #restore()}.
   */
  public int port() {
    synchronized (lock) {
      return port;
    }
  }

  /** Drops every forwarded connection and refuses new ones until {@link #restore()}. */
  public void cut() {
    synchronized (lock) {
      closeQuietly(listener);
      listener = null;
      sockets.forEach(TcpProxy::closeQuietly);
      sockets.clear();
    }
  }

  /**
   * Stops forwarding bytes, in both directions and on every connection, while keeping every socket
   * open and accepting new connections (which stall too): neither side sees an error, nothing
   * answers. Bytes read meanwhile are held and forwarded by {@link #heal()}.
   */
  public void stall() {
    synchronized (lock) {
      stalled = true;
    }
  }

  /** Forwards again after {@link #stall()}, the held bytes first. */
  public void heal() {
    synchronized (lock) {
      stalled = false;
      lock.notifyAll();
    }
  }

  /** Waits while the proxy is stalled; false when it was cut or closed meanwhile. */
  private boolean awaitForwarding(Socket from) {
    synchronized (lock) {
      while (stalled && !closed && !from.isClosed()) {
        try {
          lock.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return !closed && !from.isClosed();
    }
  }

  /** Listens again on {@link #port()}; does nothing when already listening. */
  public void restore() {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("proxy closed");
      }
      if (listener != null) {
        return;
      }
      ServerSocket socket = port == 0 ? listenOnAFreeFixedPort() : listenAgain(port);
      port = socket.getLocalPort();
      listener = socket;
      thread("accept", () -> accept(socket)).start();
    }
  }

  /**
   * Listens on a free port below the usual ephemeral range (32768 and up on Linux), so that while
   * the path is cut no outgoing connection can be given the port as its local end.
   */
  private ServerSocket listenOnAFreeFixedPort() {
    java.util.Random random = new java.util.Random();
    IOException last = null;
    for (int attempt = 0; attempt < 100; attempt++) {
      int candidate = 20_000 + random.nextInt(10_000);
      try {
        return bind(candidate);
      } catch (IOException e) {
        last = e;
      }
    }
    throw new UncheckedIOException("no free loopback port between 20000 and 29999", last);
  }

  /** Binds {@code port} again, retrying for a few seconds while the old socket winds down. */
  private ServerSocket listenAgain(int port) {
    IOException last = null;
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        return bind(port);
      } catch (IOException e) {
        last = e;
        try {
          Thread.sleep(100);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    throw new UncheckedIOException("cannot listen on loopback port " + port + " again", last);
  }

  private ServerSocket bind(int port) throws IOException {
    ServerSocket socket = listeners.createServerSocket();
    try {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    cut();
  }

  private void accept(ServerSocket socket) {
    while (!socket.isClosed()) {
      Socket client;
      try {
        client = socket.accept();
      } catch (IOException e) {
        return; // cut or closed
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(target, 5_000);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      synchronized (lock) {
        if (listener != socket) {
          closeQuietly(client);
          closeQuietly(upstream);
          return;
        }
        sockets.add(client);
        sockets.add(upstream);
      }
      thread("up", () -> pump(client, upstream)).start();
      thread("down", () -> pump(upstream, client)).start();
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int read;
      // Stalled: neither read (the sender's buffers fill up) nor forward what was read already.
      while (awaitForwarding(from) && (read = in.read(buffer)) >= 0) {
        if (!awaitForwarding(from)) {
          break;
        }
        out.write(buffer, 0, read);
        out.flush();
      }
    } catch (SocketException e) {
      // cut, or the other side went away
    } catch (IOException e) {
      // same: the connection is over either way
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static Thread thread(String role, Runnable body) {
    Thread thread = new Thread(body, "relayer-tcp-proxy-" + role + "-" + THREADS.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  }

  private static void closeQuietly(@Nullable AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      // nothing to do: the point is that it is closed
    }
  }
}
