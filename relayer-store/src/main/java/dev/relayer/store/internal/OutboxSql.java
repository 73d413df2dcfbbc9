package dev.relayer.store.internal;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.internal.OutboxSql.PARKED;
import static dev.relayer.store.internal.OutboxSql.PENDING;
import static dev.relayer.store.internal.OutboxSql.utc;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.param;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.WithStep;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The outbox's shared vocabulary for the statements of the store's packages: the status literals,
 * the one eligibility predicate, the columns a claim returns and how they are read, and the claim's
 * stamp. The eligibility test compares {@code status} with the literal {@code 'pending'}, so that a
 * plan the server reuses can still use the partial pending index.
 */
public final class OutboxSql {

  private OutboxSql() {}

  private static final RelayerOutbox O = RELAYER_OUTBOX;

  /** The columns a claim returns, in the order {@code OutboxClaims.claimed} reads them. */
  public static final List<Field<?>> CLAIMED =
      List.of(
          O.ID,
          O.MESSAGE_ID,
          O.TRANSPORT,
          O.DESTINATION,
          O.MESSAGE_TYPE,
          O.HEADERS,
          O.BODY,
          O.ORDERING_KEY,
          O.LANE,
          O.TENANT_ID,
          O.ATTEMPTS,
          O.CREATED_AT,
          O.LAST_ERROR,
          O.DELIVER_AT);

  public static final Param<OffsetDateTime> NOW = param("now", OffsetDateTime.class);

  public static final Param<Integer> LIMIT = param("limit", Integer.class);

  public static final Param<Long[]> IDS = param("ids", Long[].class);

  public static final Param<UUID> TOKEN = param("token", UUID.class);

  public static final Param<OffsetDateTime> EXPIRES_AT = param("expiresAt", OffsetDateTime.class);

  /** Pending, due and not under a live claim or retry hold at {@link #NOW}, on {@code table}. */
  public static Condition eligible(RelayerOutbox table) {
    return eligible(table, NOW);
  }

  /**
   * Pending, due and not under a live claim or retry hold at {@code now}, on {@code table};
   * boundaries at {@code now} included. The one eligibility predicate: the claims bind {@link
   * #NOW}, the backlog and health reads their own instant.
   */
  public static Condition eligible(RelayerOutbox table, Field<OffsetDateTime> now) {
    return table.STATUS.eq(inline(PENDING)).and(dueAndFree(table, now));
  }

  /** Due and not under a live claim or retry hold at {@code now}, on {@code table}. */
  private static Condition dueAndFree(RelayerOutbox table, Field<OffsetDateTime> now) {
    Condition due = table.DELIVER_AT.isNull().or(table.DELIVER_AT.le(now));
    Condition free = table.CLAIM_EXPIRES_AT.isNull().or(table.CLAIM_EXPIRES_AT.le(now));
    return due.and(free);
  }

  /**
   * {@link #eligible} for a claim by ids, its status test written as {@code status <> 'parked'}:
   * the same rows, since the status check admits only pending and parked, but no partial index's
   * predicate follows from it, so the primary key searched by the ids is the one index such a claim
   * can use. With {@code status = 'pending'} a plan that does not know the ids (a generic plan on a
   * table not yet analysed) may search the pending index by {@code lane IS NULL} alone and filter
   * the ids after, walking every entry of an unordered row, the dead ones a held xmin horizon keeps
   * included (HeldHorizonClaimIT fails with {@code status = 'pending'}). It costs direct dispatch
   * some of its median latency at low load, for reasons not found (docs/benchmarks.md, "Direct
   * dispatch latency"). The lane claim's look-up of each head by its id uses it too.
   */
  public static Condition eligibleById(RelayerOutbox table) {
    return table.STATUS.ne(inline(PARKED)).and(dueAndFree(table, NOW));
  }

  /**
   * The claim's UPDATE: stamps the rows whose ids the last CTE {@code claimable} (column {@code
   * id}) selected with {@link #TOKEN}, {@link #EXPIRES_AT} and one more attempt, and returns {@link
   * #CLAIMED}. The CTEs before it are {@code with}.
   */
  public static Query stamp(CommonTableExpression<?> claimable, CommonTableExpression<?>... with) {
    List<CommonTableExpression<?>> ctes = new ArrayList<>(List.of(with));
    ctes.add(claimable);
    return stamped(DSL.with(ctes), claimable);
  }

  /** {@link #stamp} under {@code WITH RECURSIVE}: one of the CTEs {@code with} refers to itself. */
  public static Query stampRecursive(
      CommonTableExpression<?> claimable, List<CommonTableExpression<?>> with) {
    List<CommonTableExpression<?>> ctes = new ArrayList<>(with);
    ctes.add(claimable);
    return stamped(DSL.withRecursive(ctes), claimable);
  }

  private static Query stamped(WithStep with, CommonTableExpression<?> claimable) {
    return with.update(O)
        .set(O.CLAIM_TOKEN, TOKEN)
        .set(O.CLAIM_EXPIRES_AT, EXPIRES_AT)
        .set(O.ATTEMPTS, O.ATTEMPTS.plus(inline(1)))
        .from(claimable)
        .where(O.ID.eq(claimable.field("id", Long.class)))
        .returningResult(CLAIMED);
  }

  /** The values of {@link #NOW}, {@link #TOKEN} and {@link #EXPIRES_AT} of a claim. */
  public static Binds claimBinds(Instant now, UUID token, Instant expiresAt) {
    return new Binds().set(NOW, utc(now)).set(TOKEN, token).set(EXPIRES_AT, utc(expiresAt));
  }

  /**
   * Runs a token-fenced write to the rows {@code ids} ({@link #IDS}, {@link #TOKEN}); returns how
   * many it changed, 0 without a round trip when {@code ids} is empty.
   */
  public static int updateClaimed(
      StoreJdbc jdbc,
      DSLContext dsl,
      RenderedStatement statement,
      UUID token,
      Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.update(
        dsl, statement, new Binds().set(IDS, ids.toArray(Long[]::new)).set(TOKEN, token));
  }

  public static final String PENDING = "pending";

  public static final String PARKED = "parked";

  public static @Nullable OffsetDateTime utc(@Nullable Instant instant) {
    return instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }

  /** {@link #eligible(RelayerOutbox, Field)} at {@code now}, bound as a value. */
  public static Condition eligible(OffsetDateTime now) {
    return eligible(O, DSL.val(now));
  }

  /** How long before {@code now} {@code since} was (never negative); empty for null. */
  public static Optional<Duration> age(@Nullable OffsetDateTime since, Instant now) {
    return since == null
        ? Optional.empty()
        : Optional.of(Duration.between(since.toInstant(), now))
            .filter(d -> !d.isNegative())
            .or(() -> Optional.of(Duration.ZERO));
  }
}
