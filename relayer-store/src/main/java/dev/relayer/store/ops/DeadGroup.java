package dev.relayer.store.ops;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The dead rows that share one error fingerprint (the shape of their error, {@link
 * dev.relayer.store.internal.ErrorFingerprint}): usually one cause, to fix once and then replay or
 * purge with {@link DeadFilter#fingerprint()}.
 *
 * @param fingerprint the fingerprint; {@code null} for rows that have none
 * @param count how many rows
 * @param firstFailedAt the earliest {@code failed_at}
 * @param lastFailedAt the latest {@code failed_at}
 * @param sampleError the error of one of the rows, or {@code null} when none has one
 * @param destinations every destination the rows were bound for, in text order
 */
public record DeadGroup(
    @Nullable String fingerprint,
    long count,
    Instant firstFailedAt,
    Instant lastFailedAt,
    @Nullable String sampleError,
    List<String> destinations) {

  public DeadGroup {
    destinations = List.copyOf(destinations);
  }
}
