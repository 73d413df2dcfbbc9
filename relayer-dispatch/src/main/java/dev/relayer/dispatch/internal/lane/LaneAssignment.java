package dev.relayer.dispatch.internal.lane;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which lanes an instance should own, computed alike by every instance from the same list of live
 * instances: sort the owners, and give lane {@code n} to the owner at index {@code n mod count}. No
 * instance gets more than {@code ceil(laneCount / count)} lanes, none fewer than {@code
 * floor(laneCount / count)}.
 */
public final class LaneAssignment {

  private LaneAssignment() {}

  /**
   * The lanes {@code self} should own among {@code liveOwners} (which need not contain {@code
   * self}: an instance always counts itself as live).
   */
  public static Set<Integer> lanesFor(String self, Collection<String> liveOwners, int laneCount) {
    TreeSet<String> owners = new TreeSet<>(liveOwners);
    owners.add(self);
    List<String> sorted = List.copyOf(owners);
    int index = sorted.indexOf(self);
    Set<Integer> lanes = new TreeSet<>();
    for (int lane = index; lane < laneCount; lane += sorted.size()) {
      lanes.add(lane);
    }
    return lanes;
  }
}
