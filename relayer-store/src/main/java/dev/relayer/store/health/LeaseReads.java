package dev.relayer.store.health;

import static dev.relayer.jooq.generated.Tables.RELAYER_LEASES;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;

import dev.relayer.jooq.generated.tables.RelayerLeases;
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreJdbc;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** The reads of the lease table: who holds what, until when on the database clock. */
final class LeaseReads {

  private static final RelayerLeases L = RELAYER_LEASES;
  private static final Param<String> NAME = param("name", String.class);

  private final StoreJdbc jdbc;
  private final RenderedStatement find;
  private final RenderedStatement live;
  private final RenderedStatement all;

  LeaseReads(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    this.find = jdbc.render(select(L.NAME, L.OWNER, L.EXPIRES_AT).from(L).where(L.NAME.eq(NAME)));
    this.live =
        jdbc.render(
            select(L.NAME, L.OWNER, L.EXPIRES_AT)
                .from(L)
                .where(L.NAME.startsWith(NAME))
                .and(
                    L.EXPIRES_AT.gt(
                        DSL.function("clock_timestamp", SQLDataType.TIMESTAMPWITHTIMEZONE)))
                .orderBy(L.NAME));
    this.all =
        jdbc.render(
            select(L.NAME, L.OWNER, L.EXPIRES_AT)
                .from(L)
                .where(L.NAME.startsWith(NAME))
                .orderBy(L.NAME));
  }

  Optional<LeaseState> find(DSLContext dsl, String name) {
    return states(dsl, find, name).stream().findFirst();
  }

  /** Unexpired leases whose name starts with {@code prefix}, by name. */
  List<LeaseState> live(DSLContext dsl, String prefix) {
    return states(dsl, live, prefix);
  }

  /** Every lease row whose name starts with {@code prefix}, expired or not, by name. */
  List<LeaseState> all(DSLContext dsl, String prefix) {
    return states(dsl, all, prefix);
  }

  private List<LeaseState> states(DSLContext dsl, RenderedStatement statement, String name) {
    return jdbc.list(
        dsl,
        statement,
        new Binds().set(NAME, name),
        row ->
            new LeaseState(
                row.getString(1),
                row.getString(2),
                row.getObject(3, OffsetDateTime.class).toInstant()));
  }
}
