package dev.relayer.dispatch.internal.lane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LaneAssignmentTest {

  @Test
  void everyLaneHasExactlyOneOwnerAndSharesDifferByAtMostOne() {
    for (int instances = 1; instances <= 7; instances++) {
      List<String> owners = new ArrayList<>();
      for (int i = 0; i < instances; i++) {
        owners.add("host/" + (1000 + i) + "/abc" + i);
      }
      for (int laneCount : new int[] {1, 3, 16, 17, 4096}) {
        Set<Integer> seen = new HashSet<>();
        int smallest = Integer.MAX_VALUE;
        int largest = 0;
        for (String owner : owners) {
          Set<Integer> share = LaneAssignment.lanesFor(owner, owners, laneCount);
          for (int lane : share) {
            assertThat(seen.add(lane)).as("lane %d assigned twice", lane).isTrue();
          }
          smallest = Math.min(smallest, share.size());
          largest = Math.max(largest, share.size());
        }
        assertThat(seen).hasSize(laneCount);
        assertThat(largest).isLessThanOrEqualTo((laneCount + instances - 1) / instances);
        assertThat(largest - smallest).isLessThanOrEqualTo(1);
      }
    }
  }

  @Test
  void theAssignmentDependsOnTheSetOfOwnersNotOnTheirOrder() {
    List<String> owners = new ArrayList<>(List.of("b", "a", "d", "c"));
    Set<Integer> first = LaneAssignment.lanesFor("c", owners, 16);
    Collections.shuffle(owners);
    assertThat(LaneAssignment.lanesFor("c", owners, 16))
        .isEqualTo(first)
        .containsExactly(2, 6, 10, 14);
  }

  @Test
  void anInstanceCountsItselfEvenBeforeItsHeartbeatIsVisible() {
    assertThat(LaneAssignment.lanesFor("b", List.of("a"), 4)).containsExactly(1, 3);
    assertThat(LaneAssignment.lanesFor("a", List.of(), 3)).containsExactly(0, 1, 2);
  }
}
