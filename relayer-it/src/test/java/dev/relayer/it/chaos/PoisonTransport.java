package dev.relayer.it.chaos;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The real transport, except that a batch holding a message of type {@value #TYPE} halts the JVM
 * ({@code Runtime.halt}, no shutdown hooks, exit code {@value #EXIT_CODE}) before anything of the
 * batch is sent: the message stands for one whose send kills its sender (the OOM killer on a huge
 * body, a native crash in a client library). Before halting it appends the id of each poison
 * message of the batch to a log shared by every process of the run, so the run can count how often
 * each was sent.
 */
final class PoisonTransport implements Transport {

  static final String TYPE = "Poison";
  static final int EXIT_CODE = 86;

  private final Transport delegate;
  private final Path haltLog;

  PoisonTransport(Transport delegate, Path haltLog) {
    this.delegate = delegate;
    this.haltLog = haltLog;
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
  public List<String> problems(String destination, OutgoingMessage message) {
    return delegate.problems(destination, message);
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws Exception {
    StringBuilder poison = new StringBuilder();
    for (OutgoingMessage message : batch.messages()) {
      if (TYPE.equals(message.messageType())) {
        poison.append(message.messageId()).append('\n');
      }
    }
    if (poison.length() > 0) {
      halt(poison.toString());
    }
    return delegate.send(batch);
  }

  private void halt(String ids) {
    try {
      Files.writeString(
          haltLog,
          ids,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND,
          StandardOpenOption.SYNC);
    } catch (IOException e) {
      System.err.println("cannot write " + haltLog + ": " + e);
    }
    System.err.print("poison, halting: " + ids);
    System.err.flush();
    Runtime.getRuntime().halt(EXIT_CODE);
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }
}
