package dev.relayer.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
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

  /**
   * The notification channel of the outbox table {@code qualifiedOutbox} (quoted and qualified):
   * {@code relayer_lanes_} and the first 16 hexadecimal digits of the SHA-256 of its UTF-8 bytes.
   * Short, lower case and the same on every instance of one store; two stores in one database get
   * different channels.
   */
  public static String channelOf(String qualifiedOutbox) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(qualifiedOutbox.getBytes(StandardCharsets.UTF_8));
      return "relayer_lanes_" + HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** CRC-32 of the key's UTF-8 bytes, as a signed int. */
  public static int stableHash(String orderingKey) {
    CRC32 crc = new CRC32();
    crc.update(orderingKey.getBytes(StandardCharsets.UTF_8));
    return (int) crc.getValue();
  }
}
