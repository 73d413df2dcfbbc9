package dev.relayer.store.health;

import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.function;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.table;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The statements on {@code pg_stat_activity}, {@code pg_replication_slots} and {@code
 * pg_prepared_xacts} that find what holds the xmin horizon; see {@link XminHorizon}.
 */
final class HorizonQueries {

  private static final Table<Record> ACTIVITY = table(name("pg_catalog", "pg_stat_activity"));
  private static final Field<Integer> PID = field(name("pid"), Integer.class);
  private static final Field<String> DATABASE = field(name("datname"), String.class);
  private static final Field<Object> USER_ID = field(name("usesysid"), SQLDataType.OTHER);
  private static final Field<String> USER = field(name("usename"), String.class);
  private static final Field<String> APPLICATION = field(name("application_name"), String.class);
  private static final Field<String> BACKEND_TYPE = field(name("backend_type"), String.class);
  private static final Field<String> STATE = field(name("state"), String.class);
  private static final Field<OffsetDateTime> BACKEND_START =
      field(name("backend_start"), SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Field<OffsetDateTime> XACT_START =
      field(name("xact_start"), SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Field<Object> BACKEND_XMIN = field(name("backend_xmin"), SQLDataType.OTHER);
  private static final Field<Object> BACKEND_XID = field(name("backend_xid"), SQLDataType.OTHER);

  private static final Table<Record> SLOTS = table(name("pg_catalog", "pg_replication_slots"));
  private static final Field<String> SLOT_NAME = field(name("slot_name"), String.class);
  private static final Field<String> SLOT_TYPE = field(name("slot_type"), String.class);
  private static final Field<Boolean> SLOT_ACTIVE = field(name("active"), Boolean.class);
  private static final Field<Object> SLOT_XMIN = field(name("xmin"), SQLDataType.OTHER);

  private static final Table<Record> PREPARED = table(name("pg_catalog", "pg_prepared_xacts"));
  private static final Field<String> GID = field(name("gid"), String.class);
  private static final Field<String> OWNER = field(name("owner"), String.class);
  private static final Field<String> PREPARED_DATABASE = field(name("database"), String.class);
  private static final Field<OffsetDateTime> PREPARED_AT =
      field(name("prepared"), SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Field<Object> PREPARED_XID = field(name("transaction"), SQLDataType.OTHER);

  private HorizonQueries() {}

  static XminHorizon horizon(DSLContext dsl) {
    Field<String> currentDatabase = function("current_database", String.class);
    Condition otherSessionsHere =
        DATABASE.eq(currentDatabase).and(PID.ne(function("pg_backend_pid", Integer.class)));
    Field<Long> sessionAge = greatest(age(BACKEND_XMIN), age(BACKEND_XID)).cast(SQLDataType.BIGINT);
    Condition hidden =
        USER_ID
            .isNotNull()
            .and(not(function("pg_has_role", Boolean.class, USER_ID, inline("USAGE"))))
            .and(
                not(
                    function(
                        "pg_has_role",
                        Boolean.class,
                        inline("pg_read_all_stats"),
                        inline("USAGE"))));
    var counts =
        dsl.select(function("clock_timestamp", SQLDataType.TIMESTAMPWITHTIMEZONE), count())
            .from(ACTIVITY)
            .where(otherSessionsHere.and(hidden))
            .fetchOne();
    Instant observedAt = counts.value1().toInstant();
    List<HorizonHolder> holders = new ArrayList<>();
    for (var row :
        dsl.select(
                PID, APPLICATION, USER, BACKEND_TYPE, STATE, BACKEND_START, XACT_START, sessionAge)
            .from(ACTIVITY)
            .where(otherSessionsHere)
            .and(BACKEND_XMIN.isNotNull().or(BACKEND_XID.isNotNull()))
            .orderBy(sessionAge.desc())
            .limit(XminHorizon.MAX_HOLDERS)
            .fetch()) {
      Optional<Instant> xactStart = TableStatsQueries.instant(row.value7());
      holders.add(
          new HorizonHolder.Session(
              row.value1(),
              row.value2() == null ? "" : row.value2(),
              Optional.ofNullable(row.value3()),
              row.value4() == null ? "" : row.value4(),
              Optional.ofNullable(row.value5()),
              row.value6().toInstant(),
              xactStart,
              xactStart.map(x -> nonNegative(Duration.between(x, observedAt))),
              row.value8()));
    }
    Field<Long> slotAge = age(SLOT_XMIN).cast(SQLDataType.BIGINT);
    for (var row :
        dsl.select(SLOT_NAME, SLOT_TYPE, SLOT_ACTIVE, slotAge)
            .from(SLOTS)
            .where(SLOT_XMIN.isNotNull())
            .fetch()) {
      holders.add(
          new HorizonHolder.ReplicationSlot(
              row.value1(), row.value2(), Boolean.TRUE.equals(row.value3()), row.value4()));
    }
    Field<Long> preparedAge = age(PREPARED_XID).cast(SQLDataType.BIGINT);
    for (var row :
        dsl.select(GID, OWNER, PREPARED_AT, preparedAge)
            .from(PREPARED)
            .where(PREPARED_DATABASE.eq(currentDatabase))
            .fetch()) {
      holders.add(
          new HorizonHolder.PreparedTransaction(
              row.value1(), row.value2(), row.value3().toInstant(), row.value4()));
    }
    holders.sort(Comparator.comparingLong(HorizonHolder::xminAge).reversed());
    List<HorizonHolder> oldest =
        holders.size() > XminHorizon.MAX_HOLDERS
            ? holders.subList(0, XminHorizon.MAX_HOLDERS)
            : holders;
    return new XminHorizon(observedAt, oldest, counts.value2());
  }

  private static Field<Integer> age(Field<Object> xid) {
    return function("age", Integer.class, xid);
  }

  private static Duration nonNegative(Duration duration) {
    return duration.isNegative() ? Duration.ZERO : duration;
  }
}
