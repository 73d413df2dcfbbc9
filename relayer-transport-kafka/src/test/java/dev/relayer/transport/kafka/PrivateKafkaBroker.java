package dev.relayer.transport.kafka;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts one private {@link KafkaBrokerProcess} for the whole test run, shared by every Kafka IT
 * class (a broker takes seconds to start), and stops it when the run ends: the broker lives in
 * JUnit's root store, which closes it as an {@link AutoCloseable}.
 */
final class PrivateKafkaBroker implements BeforeAllCallback {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(PrivateKafkaBroker.class);

  private static volatile KafkaBrokerProcess current;

  @Override
  public void beforeAll(ExtensionContext context) {
    current =
        context
            .getRoot()
            .getStore(NAMESPACE)
            .getOrComputeIfAbsent(
                KafkaBrokerProcess.class, key -> start(), KafkaBrokerProcess.class);
  }

  /** The run's broker; set before any {@code @BeforeAll} of a class extended with this. */
  static KafkaBrokerProcess get() {
    return current;
  }

  private static KafkaBrokerProcess start() {
    try {
      return KafkaBrokerProcess.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the private Kafka broker", e);
    }
  }
}
