package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.dispatch.internal.Events;
import dev.relayer.dispatch.internal.LeaseTracker;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lane lease changes become one summary line per balancing tick and per shutdown. */
class LeaseTrackerTest {

  @Test
  void sixteenLaneAcquisitionsAndTheirReleaseMakeOneLineEach() {
    LeaseTracker tracker = new LeaseTracker("public.relayer_", new Events(List.of()));
    for (int lane = 15; lane >= 0; lane--) {
      tracker.observe("lane/" + lane, "me", true);
    }
    tracker.observe("sweeper", "me", true);

    String started = tracker.summarizeLanes("me", "since the last balancing");
    assertThat(started)
        .isEqualTo(
            "store=public.relayer_ owner=me lane leases (since the last balancing): acquired=[0,"
                + " 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] lost=[] held=[0, 1, 2, 3,"
                + " 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]");
    for (int lane = 0; lane < 16; lane++) {
      tracker.observe("lane/" + lane, "me", true);
    }
    assertThat(tracker.summarizeLanes("me", "since the last balancing"))
        .as("renewals change nothing")
        .isNull();

    for (int lane = 0; lane < 16; lane++) {
      tracker.observe("lane/" + lane, "me", false);
    }
    assertThat(tracker.summarizeLanes("me", "released at shutdown"))
        .contains(
            "acquired=[] lost=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] held=[]");
    assertThat(tracker.holds("sweeper")).isTrue();
  }

  @Test
  void aLaneLostAndRetakenBetweenTwoTicksIsNoChange() {
    LeaseTracker tracker = new LeaseTracker("s", new Events(List.of()));
    tracker.observe("lane/2", "me", true);
    tracker.summarizeLanes("me", "tick");

    tracker.observe("lane/2", "me", false);
    tracker.observe("lane/2", "me", true);

    assertThat(tracker.summarizeLanes("me", "tick")).isNull();
  }
}
