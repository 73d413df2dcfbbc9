package dev.relayer.store;

import java.util.Map;

/**
 * Adds headers to every message {@link RelayerStore#enqueue} is given, before the checks and the
 * insert: the writer's creation context, for example the W3C {@code traceparent} of the span that
 * is current on the writing thread. Register one with {@link RelayerStore#attach}; with none
 * registered an enqueue does no extra work.
 *
 * <p>A contributor only adds: a header the message already has keeps its value, whatever the
 * contributor returns for that name, so an application that sets a header itself always wins. The
 * added headers are checked like the message's own ({@link EnqueueCheck}s, the record's text
 * rules), so a contributed value a transport cannot carry refuses the enqueue with {@link
 * dev.relayer.api.InvalidInputException} naming the header.
 */
@FunctionalInterface
public non-sealed interface HeaderContributor extends StoreHook {

  /**
   * The headers to add to {@code message}; empty (the usual case, cheap to return) for none. Runs
   * on the writer's thread, before any SQL and inside the writing transaction: it must be fast,
   * must not do I/O and must not throw.
   *
   * @param message the message as the application built it (with the headers of contributors
   *     registered before this one)
   * @return header names and values, neither null; names the message already has are ignored
   */
  Map<String, String> headers(NewMessage message);
}
