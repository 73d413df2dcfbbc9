package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.StoreOptions;
import dev.relayer.transport.memory.InMemoryTransport;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** {@link Relayer#afterCommit(java.util.Collection, java.util.Collection)} checks what it gets. */
class RelayerAfterCommitLanesTest {

  private static PGSimpleDataSource nowhere() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl("jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=1");
    return dataSource;
  }

  @Test
  void afterCommitWithLanesNamesBadIdsAndLanesOutsideTheLaneCount() {
    try (Relayer relayer =
        Relayer.builder(nowhere())
            .store(new StoreOptions(SchemaOptions.defaults(), 4))
            .transport(InMemoryTransport.named("memory"))
            .build()) {
      assertThatThrownBy(() -> relayer.afterCommit(List.of(1L), null))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("lanes must not be null");
      assertThatThrownBy(() -> relayer.afterCommit(List.of(0L), Arrays.asList(3, null, 4, -1)))
          .isInstanceOf(InvalidInputException.class)
          .satisfies(
              e ->
                  assertThat(((InvalidInputException) e).problems())
                      .containsExactly(
                          "ids[0] must be a positive outbox id, was 0",
                          "lanes[1] must not be null",
                          "lanes[2] must be between 0 and 3, was 4",
                          "lanes[3] must be between 0 and 3, was -1"));
      relayer.afterCommit(List.of(1L, 2L), Set.of(0, 3)); // before start: accepted
    }
  }
}
