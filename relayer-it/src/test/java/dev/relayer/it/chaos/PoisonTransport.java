package dev.relayer.it.chaos;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import java.util.List;

/**
 * The real transport, except that a batch holding a message of type {@value #TYPE} halts the JVM
 * ({@code Runtime.halt}, no shutdown hooks, exit code {@value #EXIT_CODE}) before anything of the
 * batch is sent: the message stands for one whose send kills its sender (the OOM killer on a huge
 * body, a native crash in a client library).
 */
final class PoisonTransport implements Transport {

  static final String TYPE = "Poison";
  static final int EXIT_CODE = 86;

  private final Transport delegate;

  PoisonTransport(Transport delegate) {
    this.delegate = delegate;
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
    for (OutgoingMessage message : batch.messages()) {
      if (TYPE.equals(message.messageType())) {
        System.err.println("poison id=" + message.messageId() + ": halting");
        System.err.flush();
        Runtime.getRuntime().halt(EXIT_CODE);
      }
    }
    return delegate.send(batch);
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }
}
