package dev.relayer.bench.peer;

/**
 * What the peer's outbox calls for each message: transaction-outbox records method invocations, so
 * a message is a call with the benchmark payload as arguments.
 */
public interface PeerSink {

  /**
   * Delivers one message.
   *
   * @param seq the benchmark's sequence number (negative when untimed)
   * @param destination the destination
   * @param messageType the message type
   * @param headers headers as JSON text
   * @param body the 256-byte ASCII body
   */
  void send(long seq, String destination, String messageType, String headers, String body);
}
