package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;

import dev.relayer.schema.SchemaOptions;
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
}
