package dev.relayer.store.pass;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.internal.StoreChecks;
import java.time.Duration;

/**
 * Who wants which lease for how long.
 *
 * @param name lease name, for example {@code sweeper} or {@code lane/3}; not blank
 * @param owner unique identity of the owner (instance id plus component); not blank
 * @param duration how long the lease lasts after the pass ends; 1 s to 1 h
 */
public record LeaseRequest(String name, String owner, Duration duration) {

  public LeaseRequest {
    StoreChecks.requireText("lease name", name);
    StoreChecks.requireText("lease owner", owner);
    if (duration == null
        || duration.compareTo(Duration.ofSeconds(1)) < 0
        || duration.compareTo(Duration.ofHours(1)) > 0) {
      throw new InvalidInputException("lease duration must be between 1s and 1h, was " + duration);
    }
  }
}
