package dev.relayer.dispatch.internal;

import dev.relayer.store.EnqueueCheck;
import dev.relayer.store.NewMessage;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A {@link dev.relayer.dispatch.Relayer}'s {@link EnqueueCheck} on transport names: a message
 * naming a transport that is neither registered in the Relayer nor declared as delivered by other
 * instances is refused at enqueue, with the names that are known. Without it, such a row would be
 * retried by every instance and go dead as {@code unknown-transport} after its attempts.
 */
public final class KnownTransports implements EnqueueCheck {

  private final Set<String> registered;
  private final Set<String> external;
  private final String known;

  /**
   * @param registered the names of the transports the Relayer sends through
   * @param external the names other instances deliver, which this one only writes
   */
  public KnownTransports(Set<String> registered, Set<String> external) {
    this.registered = Set.copyOf(registered);
    this.external = Set.copyOf(external);
    Set<String> all = new TreeSet<>(registered);
    all.addAll(external);
    this.known =
        all.isEmpty()
            ? "this Relayer registers no transport and names none that other instances deliver"
            : "known: " + String.join(", ", all.stream().map(n -> "'" + n + "'").toList());
  }

  @Override
  public List<String> problems(NewMessage message) {
    String name = message.transport();
    if (registered.contains(name) || external.contains(name)) {
      return List.of();
    }
    return List.of(
        "transport '"
            + name
            + "' is not known to this Relayer ("
            + known
            + "): register it, name it with Relayer.Builder.externalTransports when other"
            + " instances deliver it, or turn the check off with acceptAnyTransport()");
  }
}
