package dev.relayer.store;

/**
 * A hook attached with {@link RelayerStore#attach}; {@link #close()} detaches it (again: no
 * effect).
 */
@FunctionalInterface
public interface StoreAttachment extends AutoCloseable {

  /** Detaches the hook: the store's next writes no longer call it. */
  @Override
  void close();
}
