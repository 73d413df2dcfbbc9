package dev.relayer.store;

import java.util.List;

/**
 * Looks at every message before {@link RelayerStore#enqueue} writes it, so that a message that can
 * never be sent is refused in the writer's transaction instead of failing later. A dispatcher
 * installs one that asks its transports ({@code Transport.problems}); see {@link
 * RelayerStore#attach}.
 */
@FunctionalInterface
public non-sealed interface EnqueueCheck extends StoreHook {

  /**
   * What makes {@code message} impossible to send, one sentence per problem naming the field
   * ({@code destination}, {@code messageType}, {@code header 'name'}); empty when nothing is wrong
   * or the check does not know the message's transport. Runs before any SQL, on the writer's
   * thread: it must be fast, must not do I/O and must not throw.
   */
  List<String> problems(NewMessage message);
}
