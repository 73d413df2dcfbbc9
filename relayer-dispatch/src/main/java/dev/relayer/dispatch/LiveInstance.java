package dev.relayer.dispatch;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A Relayer instance that holds at least one unexpired lease (database clock): the sweeper or
 * cleanup of a store, a lane ({@code lane/<n>}) or its lane heartbeat ({@code instance/<owner>}).
 * Relayer keeps no other registry of instances, so an instance that only dispatches directly (no
 * maintenance, no lanes) holds no lease and is not seen here.
 *
 * @param owner the owner identity its leases carry
 * @param leases the names of its unexpired leases, in name order
 * @param heartbeatExpiresAt when its lane heartbeat lapses, if it runs lanes
 * @param expiresAt when the last of its leases lapses
 */
public record LiveInstance(
    String owner, List<String> leases, Optional<Instant> heartbeatExpiresAt, Instant expiresAt) {

  public LiveInstance {
    leases = List.copyOf(leases);
  }
}
