package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import dev.relayer.jooq.generated.tables.RelayerOutboxDead;
import java.time.Instant;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/** Every statement on the dead table, including the move from the outbox. */
final class OutboxDeadQueries {

  private static final RelayerOutbox O = RELAYER_OUTBOX;
  private static final RelayerOutboxDead D = RELAYER_OUTBOX_DEAD;

  private OutboxDeadQueries() {}

  /** Moves claimed rows fenced by {@code token} to the dead table, in one statement. */
  static int moveClaimed(DSLContext dsl, UUID token, DeadLetter letter) {
    if (letter.ids().isEmpty()) {
      return 0;
    }
    return move(
        dsl, O.ID.eq(any(letter.ids().toArray(Long[]::new))).and(O.CLAIM_TOKEN.eq(token)), letter);
  }

  /**
   * Moves the parked head {@code id} to the dead table (operator action), keeping its last error
   * and fingerprinting it.
   */
  static int moveParked(DSLContext dsl, long id, String reason, Instant failedAt) {
    Condition parkedHead = O.ID.eq(id).and(O.STATUS.eq(OutboxQueries.PARKED));
    var lastError = dsl.select(O.LAST_ERROR).from(O).where(parkedHead).forUpdate().fetchOptional();
    if (lastError.isEmpty()) {
      return 0;
    }
    String error = lastError.get().value1() == null ? reason : lastError.get().value1();
    return move(dsl, parkedHead, new DeadLetter(java.util.List.of(id), reason, error, failedAt));
  }

  private static int move(DSLContext dsl, Condition which, DeadLetter letter) {
    CommonTableExpression<?> moved =
        name("moved")
            .as(
                dsl.deleteFrom(O)
                    .where(which)
                    .returning(
                        O.ID,
                        O.MESSAGE_ID,
                        O.TRANSPORT,
                        O.DESTINATION,
                        O.MESSAGE_TYPE,
                        O.HEADERS,
                        O.BODY,
                        O.CREATED_AT,
                        O.ORDERING_KEY,
                        O.LANE,
                        O.DELIVER_AT,
                        O.TENANT_ID,
                        O.ATTEMPTS,
                        O.LAST_ERROR));
    Table<? extends Record> m = moved;
    String error = ErrorText.stored(letter.error());
    Field<String> lastError =
        coalesce(val(error, O.LAST_ERROR.getDataType()), m.field(O.LAST_ERROR));
    Field<String> fingerprint = val(ErrorFingerprint.of(error), D.ERROR_FINGERPRINT.getDataType());
    return dsl.with(moved)
        .insertInto(
            D,
            D.ID,
            D.MESSAGE_ID,
            D.TRANSPORT,
            D.DESTINATION,
            D.MESSAGE_TYPE,
            D.HEADERS,
            D.BODY,
            D.CREATED_AT,
            D.ORDERING_KEY,
            D.LANE,
            D.DELIVER_AT,
            D.TENANT_ID,
            D.ATTEMPTS,
            D.LAST_ERROR,
            D.FAILED_AT,
            D.REASON,
            D.ERROR_FINGERPRINT)
        .select(
            select(
                    m.field(O.ID),
                    m.field(O.MESSAGE_ID),
                    m.field(O.TRANSPORT),
                    m.field(O.DESTINATION),
                    m.field(O.MESSAGE_TYPE),
                    m.field(O.HEADERS),
                    m.field(O.BODY),
                    m.field(O.CREATED_AT),
                    m.field(O.ORDERING_KEY),
                    m.field(O.LANE),
                    m.field(O.DELIVER_AT),
                    m.field(O.TENANT_ID),
                    m.field(O.ATTEMPTS),
                    lastError,
                    val(OutboxQueries.utc(letter.failedAt()), D.FAILED_AT.getDataType()),
                    val(letter.reason(), D.REASON.getDataType()),
                    fingerprint)
                .from(m))
        .execute();
  }

  static long count(DSLContext dsl) {
    return dsl.fetchCount(D);
  }

  /** {@code (select count(*) from dead)}, for the health read. */
  static Field<Integer> countField() {
    return DSL.field(select(DSL.count()).from(D));
  }

  /** {@code (select count(*) from dead where failed_at > since)}, for the health read. */
  static Field<Integer> countSinceField(Instant since) {
    return DSL.field(select(DSL.count()).from(D).where(D.FAILED_AT.gt(OutboxQueries.utc(since))));
  }
}
