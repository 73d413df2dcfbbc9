package dev.relayer.store;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Maps ordering keys to lanes: {@code lane = floorMod(crc32(utf8(key)) as signed int, laneCount)}.
 * CRC-32 (the IEEE polynomial of {@link CRC32}) over the key's UTF-8 bytes is the same on every JVM
 * and easy to reproduce in other languages, so every instance and every tool agrees on a key's
 * lane.
 */
public final class Lanes {

  private Lanes() {}

  /** The lane of {@code orderingKey} among {@code laneCount} lanes. */
  public static int laneOf(String orderingKey, int laneCount) {
    if (laneCount < 1) {
      throw new IllegalArgumentException("laneCount must be at least 1, was " + laneCount);
    }
    return Math.floorMod(stableHash(orderingKey), laneCount);
  }

  /** CRC-32 of the key's UTF-8 bytes, as a signed int. */
  public static int stableHash(String orderingKey) {
    CRC32 crc = new CRC32();
    crc.update(orderingKey.getBytes(StandardCharsets.UTF_8));
    return (int) crc.getValue();
  }
}
