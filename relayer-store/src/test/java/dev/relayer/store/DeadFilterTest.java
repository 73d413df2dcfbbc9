package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadPage;
import dev.relayer.store.ops.DeadRow;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DeadFilterTest {

  @Test
  void aFilterWithNoFieldMatchesEveryRow() {
    assertThat(DeadFilter.builder().build()).isEqualTo(DeadFilter.all());
    assertThat(DeadFilter.all().matchesAll()).isTrue();
    assertThat(DeadFilter.all()).hasToString("all");
    assertThat(DeadFilter.builder().reason("rejected").build().matchesAll()).isFalse();
  }

  @Test
  void toStringNamesTheFieldsThatAreSet() {
    DeadFilter filter =
        DeadFilter.builder()
            .transport("kafka")
            .failedBefore(Instant.parse("2026-03-01T00:00:00Z"))
            .build();

    assertThat(filter).hasToString("transport=kafka failedBefore=2026-03-01T00:00:00Z");
  }

  @Test
  void buildRejectsEveryBadFieldAtOnceNamingEach() {
    assertThatThrownBy(
            () ->
                DeadFilter.builder()
                    .fingerprint(" ")
                    .transport("")
                    .destination("orders\0")
                    .failedFrom(Instant.parse("2026-03-02T00:00:00Z"))
                    .failedBefore(Instant.parse("2026-03-01T00:00:00Z"))
                    .build())
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "fingerprint must not be blank when set (leave it out to match every row)",
                        "transport must not be blank when set (leave it out to match every row)",
                        "destination must not contain a NUL character (at index 6)",
                        "failedBefore must be after failedFrom, was 2026-03-01T00:00:00Z"
                            + " (failedFrom 2026-03-02T00:00:00Z)"));
    Instant same = Instant.parse("2026-03-01T00:00:00Z");
    assertThatThrownBy(() -> DeadFilter.builder().failedFrom(same).failedBefore(same).build())
        .hasMessageContaining("failedBefore must be after failedFrom");
    assertThatThrownBy(() -> DeadFilter.builder().failedFrom(Instant.MIN).build())
        .hasMessageContaining("failedFrom must be between");
  }

  @Test
  void pagesCheckTheirRangeAndLimit() {
    DeadPage first = DeadPage.first(DeadFilter.all(), 50);
    assertThat(first.afterId()).isZero();
    assertThat(first.upToId()).isEqualTo(Long.MAX_VALUE);
    assertThat(first.upTo(900).after(40)).isEqualTo(new DeadPage(DeadFilter.all(), 40, 900, 50));

    assertThatThrownBy(() -> DeadPage.first(DeadFilter.all(), 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("limit must be between 1 and 10000, was 0");
    assertThatThrownBy(() -> DeadPage.first(DeadFilter.all(), 10_001))
        .hasMessage("limit must be between 1 and 10000, was 10001");
    assertThatThrownBy(() -> first.after(-1)).hasMessage("afterId must not be negative, was -1");
    assertThatThrownBy(() -> first.upTo(10).after(11))
        .hasMessage("upToId must be at least afterId (11), was 10");
  }

  @Test
  void aDeadRowShowsItsBodyAsTextOnlyWhenItIsUtf8() {
    DeadRow text = row(new byte[] {'h', 'i', (byte) 0xc3, (byte) 0xa9});
    DeadRow binary = row(new byte[] {(byte) 0xc3, 0x28, 0x00});

    assertThat(text.bodyText()).contains("hié");
    assertThat(text.bodyHex()).isEqualTo("6869c3a9");
    assertThat(binary.bodyText()).isEmpty();
    assertThat(binary.bodyHex()).isEqualTo("c32800");
  }

  private static DeadRow row(byte[] body) {
    Instant at = Instant.parse("2026-03-01T00:00:00Z");
    return new DeadRow(
        1,
        java.util.UUID.randomUUID(),
        "memory",
        "orders",
        "OrderPlaced",
        java.util.Map.of(),
        body,
        at,
        null,
        null,
        null,
        null,
        3,
        "boom",
        at,
        "max-attempts",
        ErrorFingerprint.of("boom"));
  }

  @Test
  void idsAreKeptInAscendingOrderAndCheckedPositive() {
    DeadFilter filter = DeadFilter.builder().ids(java.util.List.of(9L, 3L, 9L)).build();

    assertThat(filter.ids()).containsExactly(3L, 9L);
    assertThat(filter.matchesAll()).isFalse();
    assertThat(filter).hasToString("ids=[3, 9]");
    assertThat(DeadFilter.builder().ids(java.util.List.of()).build().matchesAll()).isTrue();
    assertThatThrownBy(() -> DeadFilter.builder().ids(java.util.List.of(0L, 4L)).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("ids must be positive, had 0");
  }
}
