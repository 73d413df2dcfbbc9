package dev.relayer.store.pass;

import dev.relayer.store.RelayerStore;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The bridge from a {@link RelayerStore} to its {@link PassStatements}: the store installs it once,
 * from its class initializer, and only this package reads it. Since a store instance exists only
 * after that initializer ran, every store handed to {@link Passes#of} finds it installed.
 */
public final class StoreAccess {

  private static @Nullable Function<RelayerStore, PassStatements> statements;

  private StoreAccess() {}

  /**
   * Installs the store's side of the bridge. Called by {@link RelayerStore} alone; a second call
   * throws {@link IllegalStateException}, so a call from elsewhere makes the store fail to load
   * rather than run another's statements.
   */
  public static synchronized void install(Function<RelayerStore, PassStatements> statements) {
    if (StoreAccess.statements != null) {
      throw new IllegalStateException("the store's pass statements are installed already");
    }
    StoreAccess.statements = Objects.requireNonNull(statements, "statements");
  }

  static synchronized PassStatements statementsOf(RelayerStore store) {
    Function<RelayerStore, PassStatements> installed = statements;
    if (installed == null) {
      throw new IllegalStateException("no RelayerStore has been created");
    }
    return installed.apply(store);
  }
}
