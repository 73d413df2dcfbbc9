package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class LanesTest {

  @Test
  void payloadsListTheLanesInAscendingOrderSeparatedByCommas() {
    assertThat(Lanes.payloads(Set.of(17, 0, 3))).containsExactly("0,3,17");
    assertThat(Lanes.payloads(Set.of(5))).containsExactly("5");
    assertThat(Lanes.payloads(Set.of())).isEmpty();
  }

  @Test
  void payloadsOfEveryLaneAreSplitWithinThePayloadLimitAndNameEachLaneOnce() {
    Set<Integer> all = new TreeSet<>();
    for (int lane = 0; lane < StoreOptions.MAX_LANES; lane++) {
      all.add(lane);
    }

    List<String> payloads = Lanes.payloads(all);

    assertThat(payloads).hasSize(3);
    List<Integer> named = new java.util.ArrayList<>();
    for (String payload : payloads) {
      int bytes = payload.getBytes(StandardCharsets.UTF_8).length;
      assertThat(bytes).isLessThanOrEqualTo(Lanes.MAX_PAYLOAD_BYTES);
      assertThat(payload).doesNotStartWith(",").doesNotEndWith(",");
      named.addAll(Lanes.lanesIn(payload));
    }
    assertThat(named).containsExactlyElementsOf(all);
    // All but the last payload are filled up to the limit, less than one lane number.
    assertThat(payloads.get(0).length()).isGreaterThan(Lanes.MAX_PAYLOAD_BYTES - 5);
  }

  @Test
  void lanesInReadsListsAndSingleLanesAndSkipsWhatIsNotALane() {
    assertThat(Lanes.lanesIn("0,3,17")).containsExactly(0, 3, 17);
    assertThat(Lanes.lanesIn(" 7 ")).containsExactly(7);
    assertThat(Lanes.lanesIn("4,x,-1,,9")).containsExactly(4, 9);
    assertThat(Lanes.lanesIn("")).isEmpty();
    assertThat(Lanes.lanesIn(null)).isEmpty();
  }

  @Test
  void payloadsRefuseNegativeLanes() {
    assertThatThrownBy(() -> Lanes.payloads(Set.of(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }
}
