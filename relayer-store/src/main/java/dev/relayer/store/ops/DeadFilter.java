package dev.relayer.store.ops;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.TextChecks;
import dev.relayer.store.internal.StoreChecks;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jspecify.annotations.NullUnmarked;
import org.jspecify.annotations.Nullable;

/**
 * Which dead rows an operator's read or action covers: every field that is set must match (exact
 * text equality; {@code failed_at} in {@code [failedFrom, failedBefore)}); a field left {@code
 * null} (or, for {@code ids}, empty) matches every row. {@link #all()} matches the whole dead
 * table. Build one with {@link #builder()}; {@code build()} rejects bad input, listing every
 * problem and naming each field.
 *
 * @param fingerprint {@code error_fingerprint} ({@link
 *     dev.relayer.store.internal.ErrorFingerprint}); not blank when set
 * @param transport {@code transport}; not blank when set
 * @param destination {@code destination}; not blank when set
 * @param messageType {@code message_type}; not blank when set
 * @param tenantId {@code tenant_id}; not blank when set
 * @param orderingKey {@code ordering_key}; not blank when set
 * @param reason {@code reason} ({@code max-attempts}, {@code rejected}, {@code unknown-transport},
 *     {@code operator}, …); not blank when set
 * @param failedFrom rows that failed at or after this instant
 * @param failedBefore rows that failed strictly before this instant; after {@code failedFrom}
 * @param ids rows with one of these dead ids only, in ascending order; empty for any id; at most
 *     {@value #MAX_IDS}, each positive
 */
public record DeadFilter(
    @Nullable String fingerprint,
    @Nullable String transport,
    @Nullable String destination,
    @Nullable String messageType,
    @Nullable String tenantId,
    @Nullable String orderingKey,
    @Nullable String reason,
    @Nullable Instant failedFrom,
    @Nullable Instant failedBefore,
    Set<Long> ids) {

  /** Most ids one filter may name: {@value}. */
  public static final int MAX_IDS = 10_000;

  private static final DeadFilter ALL =
      new DeadFilter(null, null, null, null, null, null, null, null, null, Set.of());

  public DeadFilter {
    List<String> problems = new ArrayList<>();
    if (ids == null) {
      problems.add("ids must not be null (leave it empty to match every id)");
      ids = Set.of();
    } else {
      SortedSet<Long> sorted = new TreeSet<>();
      for (Long id : ids) {
        if (id == null || id < 1) {
          problems.add("ids must be positive, had " + id);
        } else {
          sorted.add(id);
        }
      }
      if (sorted.size() > MAX_IDS) {
        problems.add("ids must name at most " + MAX_IDS + " ids, had " + sorted.size());
      }
      ids = Collections.unmodifiableSortedSet(sorted);
    }
    text(problems, "fingerprint", fingerprint);
    text(problems, "transport", transport);
    text(problems, "destination", destination);
    text(problems, "messageType", messageType);
    text(problems, "tenantId", tenantId);
    text(problems, "orderingKey", orderingKey);
    text(problems, "reason", reason);
    if (failedFrom != null) {
      StoreChecks.instantProblem("failedFrom", failedFrom).ifPresent(problems::add);
    }
    if (failedBefore != null) {
      StoreChecks.instantProblem("failedBefore", failedBefore).ifPresent(problems::add);
    }
    if (failedFrom != null && failedBefore != null && !failedBefore.isAfter(failedFrom)) {
      problems.add(
          "failedBefore must be after failedFrom, was "
              + failedBefore
              + " (failedFrom "
              + failedFrom
              + ")");
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
  }

  private static void text(List<String> problems, String field, @Nullable String value) {
    if (value == null) {
      return;
    }
    if (value.isBlank()) {
      problems.add(field + " must not be blank when set (leave it out to match every row)");
    } else {
      TextChecks.problem(field, value).ifPresent(problems::add);
    }
  }

  /** The filter that matches every dead row. */
  public static DeadFilter all() {
    return ALL;
  }

  /** Whether this filter matches every dead row (no field is set). */
  public boolean matchesAll() {
    return equals(ALL);
  }

  /**
   * The fields that are set, as {@code name=value} separated by spaces ({@code all} for none), for
   * logs.
   */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    part(parts, "fingerprint", fingerprint);
    part(parts, "transport", transport);
    part(parts, "destination", destination);
    part(parts, "messageType", messageType);
    part(parts, "tenantId", tenantId);
    part(parts, "orderingKey", orderingKey);
    part(parts, "reason", reason);
    part(parts, "failedFrom", failedFrom);
    part(parts, "failedBefore", failedBefore);
    if (!ids.isEmpty()) {
      parts.add("ids=" + ids);
    }
    return parts.isEmpty() ? "all" : String.join(" ", parts);
  }

  private static void part(List<String> parts, String name, @Nullable Object value) {
    Optional.ofNullable(value).ifPresent(v -> parts.add(name + "=" + v));
  }

  /** A builder with no field set (a filter that matches every row). */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link DeadFilter}; every setter takes {@code null} for "any". */
  // The record's constructor checks every field, so the builder is left out of NullAway.
  @NullUnmarked
  public static final class Builder {
    private String fingerprint;
    private String transport;
    private String destination;
    private String messageType;
    private String tenantId;
    private String orderingKey;
    private String reason;
    private Instant failedFrom;
    private Instant failedBefore;
    private Collection<Long> ids = Set.of();

    private Builder() {}

    /** Rows whose {@code error_fingerprint} is this. */
    public Builder fingerprint(String fingerprint) {
      this.fingerprint = fingerprint;
      return this;
    }

    /** Rows of this transport. */
    public Builder transport(String transport) {
      this.transport = transport;
      return this;
    }

    /** Rows bound for this destination. */
    public Builder destination(String destination) {
      this.destination = destination;
      return this;
    }

    /** Rows of this message type. */
    public Builder messageType(String messageType) {
      this.messageType = messageType;
      return this;
    }

    /** Rows of this tenant. */
    public Builder tenantId(String tenantId) {
      this.tenantId = tenantId;
      return this;
    }

    /** Rows of this ordering key. */
    public Builder orderingKey(String orderingKey) {
      this.orderingKey = orderingKey;
      return this;
    }

    /** Rows moved to the dead table for this reason. */
    public Builder reason(String reason) {
      this.reason = reason;
      return this;
    }

    /** Rows that failed at or after this instant. */
    public Builder failedFrom(Instant failedFrom) {
      this.failedFrom = failedFrom;
      return this;
    }

    /** Rows that failed strictly before this instant. */
    public Builder failedBefore(Instant failedBefore) {
      this.failedBefore = failedBefore;
      return this;
    }

    /** Rows with one of these dead ids ({@link DeadRow#id()}); {@code null} or empty for any. */
    public Builder ids(Collection<Long> ids) {
      this.ids = ids == null ? Set.of() : new ArrayList<>(ids);
      return this;
    }

    /** Validates and builds; throws {@link InvalidInputException} listing every problem. */
    public DeadFilter build() {
      return new DeadFilter(
          fingerprint,
          transport,
          destination,
          messageType,
          tenantId,
          orderingKey,
          reason,
          failedFrom,
          failedBefore,
          new HashSet<>(ids));
    }
  }
}
