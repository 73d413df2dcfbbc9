package dev.relayer.dispatch;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A transport that sends through another and counts its {@link #close()} calls, noting what was
 * still running at the first one (so a test can tell that nothing sent through it any more).
 */
final class CloseCountingTransport implements Transport {

  private final Transport delegate;
  private final Supplier<Set<String>> running;
  private final AtomicInteger closes = new AtomicInteger();
  private volatile Set<String> runningAtClose;

  CloseCountingTransport(Transport delegate) {
    this(delegate, Set::of);
  }

  /** {@code running} is asked, at the first close, what is still running. */
  CloseCountingTransport(Transport delegate, Supplier<Set<String>> running) {
    this.delegate = delegate;
    this.running = running;
  }

  int closes() {
    return closes.get();
  }

  /** What {@code running} answered at the first close; null before it. */
  Set<String> runningAtClose() {
    return runningAtClose;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public int maxBatchSize() {
    return delegate.maxBatchSize();
  }

  @Override
  public boolean preservesBatchOrder() {
    return delegate.preservesBatchOrder();
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws Exception {
    return delegate.send(batch);
  }

  @Override
  public List<String> problems(String destination, OutgoingMessage message) {
    return delegate.problems(destination, message);
  }

  @Override
  public void close() throws Exception {
    if (closes.incrementAndGet() == 1) {
      runningAtClose = Set.copyOf(running.get());
    }
    delegate.close();
  }
}
