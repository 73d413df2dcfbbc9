package dev.relayer.store.internal;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import dev.relayer.jooq.generated.tables.RelayerOutboxDead;
import java.time.Instant;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;

/** The move of outbox rows to the dead table: by a pass's claim, or an operator's parked head. */
public final class DeadMoves {
  private static final RelayerOutbox O = RELAYER_OUTBOX;

  private static final RelayerOutboxDead D = RELAYER_OUTBOX_DEAD;

  private DeadMoves() {}

  /**
   * Moves the outbox rows {@code which} selects to the dead table in one statement, with {@code
   * reason}, {@code error} (stored as {@code last_error} and fingerprinted) and {@code failedAt};
   * returns how many.
   */
  public static int move(
      DSLContext dsl, Condition which, String reason, String error, Instant failedAt) {
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
    String stored = ErrorText.stored(error);
    Field<String> lastError =
        coalesce(val(stored, O.LAST_ERROR.getDataType()), m.field(O.LAST_ERROR));
    Field<String> fingerprint = val(ErrorFingerprint.of(stored), D.ERROR_FINGERPRINT.getDataType());
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
                    val(OutboxSql.utc(failedAt), D.FAILED_AT.getDataType()),
                    val(reason, D.REASON.getDataType()),
                    fingerprint)
                .from(m))
        .execute();
  }
}
