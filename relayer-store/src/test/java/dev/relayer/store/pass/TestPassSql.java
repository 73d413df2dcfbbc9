package dev.relayer.store.pass;

import dev.relayer.store.RelayerStore;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/** The pass statements of a store, for tests that run them one by one outside a pass. */
public final class TestPassSql {

  private static final Map<RelayerStore, PassSql> BY_STORE =
      Collections.synchronizedMap(new WeakHashMap<>());

  private TestPassSql() {}

  /** The statements of {@code store}'s passes, rendered once per store. */
  public static PassSql of(RelayerStore store) {
    return BY_STORE.computeIfAbsent(store, s -> PassSql.of(s.options()));
  }
}
