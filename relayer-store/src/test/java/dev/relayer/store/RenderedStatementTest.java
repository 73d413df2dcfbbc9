package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.internal.StoreJdbc;
import java.util.List;
import org.jooq.Param;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

class RenderedStatementTest {

  @Test
  void placeholdersReplaceParametersButNotColonsInQuotedNamesOrLiterals() {
    StoreJdbc jdbc = new StoreJdbc(new StoreDsl(SchemaOptions.of("we:ird \"s\"", "p:x_")));
    var o = RELAYER_OUTBOX;

    RenderedStatement statement =
        jdbc.render(
            select(o.ID)
                .from(o)
                .where(o.LANE.eq(param("lane", Integer.class)))
                .and(o.LAST_ERROR.eq(inline("a:b 'c'")))
                .and(o.DESTINATION.eq(DSL.val("d:e")))
                .and(o.ATTEMPTS.lt(param("lane", Integer.class))));

    assertThat(statement.sql())
        .contains("\"we:ird \"\"s\"\"\".\"p:x_outbox\"")
        .contains("'a:b ''c'''")
        .doesNotContain(":lane")
        .doesNotContain("d:e");
    assertThat(statement.sql().chars().filter(c -> c == '?').count()).isEqualTo(3);
  }

  private final StoreJdbc jdbc = new StoreJdbc(new StoreDsl(SchemaOptions.defaults()));
  private final Param<Integer> lane = param("lane", Integer.class);
  private final Param<String> error = param("error", String.class);
  private final RenderedStatement byLaneAndError =
      jdbc.render(
          select(RELAYER_OUTBOX.ID)
              .from(RELAYER_OUTBOX)
              .where(RELAYER_OUTBOX.LANE.eq(lane))
              .and(RELAYER_OUTBOX.DESTINATION.eq(DSL.val("orders")))
              .and(RELAYER_OUTBOX.LAST_ERROR.eq(error))
              .and(RELAYER_OUTBOX.ATTEMPTS.lt(lane)));

  @Test
  void variablesTakeTheValuesSetThroughTheirParametersAndConstantsKeepTheirs() {
    Binds binds = new Binds().set(lane, 3).set(error, null);

    assertThat(byLaneAndError.values(binds)).containsExactly(3, "orders", null, 3);
  }

  @Test
  void aVariableWithoutAValueIsRefusedByName() {
    Binds binds = new Binds().set(lane, 3);

    assertThatThrownBy(() -> byLaneAndError.values(binds))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("No value for :error");
  }

  @Test
  void aValueSetThroughAParameterOfTheSameNameButAnotherTypeIsRefused() {
    Binds binds = new Binds().set(param("lane", Long.class), 3L).set(error, "x");

    assertThatThrownBy(() -> byLaneAndError.values(binds))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(":lane has type Integer")
        .hasMessageEndingWith("but its value was set as Long");
  }

  @Test
  void callsBindTheSharedFirstArgumentBesideEachOtherArgumentInOrder() {
    StoreJdbc.Calls<Integer, Integer> locks =
        jdbc.calls("pg_advisory_xact_lock", Integer.class, Integer.class);
    Binds binds = new Binds();

    locks.put(binds, 7, List.of(11, 12, 13));

    assertThat(locks.statement(3).values(binds)).containsExactly(7, 11, 7, 12, 7, 13);
    assertThat(locks.statement(3).sql()).startsWith("select \"pg_advisory_xact_lock\"(?, ?), ");
  }

  @Test
  void statementsRunAsOneBindTheirVariablesFromTheSameValues() {
    RenderedStatement both =
        byLaneAndError.then(
            jdbc.render(
                select(RELAYER_OUTBOX.ID)
                    .from(RELAYER_OUTBOX)
                    .where(RELAYER_OUTBOX.LANE.eq(lane))));

    assertThat(both.statements()).isEqualTo(2);
    assertThat(both.values(new Binds().set(lane, 5).set(error, "e")))
        .containsExactly(5, "orders", "e", 5, 5);
  }
}
