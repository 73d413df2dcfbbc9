package dev.relayer.store;

import dev.relayer.store.internal.KeyLocks;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.CRC32;

/**
 * Maps ordering keys to lanes: {@code lane = floorMod(crc32(utf8(key)) as signed int, laneCount)}.
 * CRC-32 (the IEEE polynomial of {@link CRC32}) over the key's UTF-8 bytes is the same on every JVM
 * and easy to reproduce in other languages, so every instance and every tool agrees on a key's
 * lane.
 */
public final class Lanes {

  /**
   * Longest notification payload Relayer sends, in bytes: PostgreSQL refuses a payload of 8000
   * bytes or more (in a default build).
   */
  public static final int MAX_PAYLOAD_BYTES = 7999;

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

  /**
   * The payloads of one notification round for {@code lanes}: the lane numbers in ascending order,
   * in decimal, separated by commas ({@code 0,3,17}), split into as few payloads as keep each
   * within {@link #MAX_PAYLOAD_BYTES}. Empty for no lanes. A single lane is its number alone, as
   * earlier versions sent it.
   */
  public static List<String> payloads(Set<Integer> lanes) {
    List<String> payloads = new ArrayList<>();
    StringBuilder payload = new StringBuilder();
    for (int lane : new TreeSet<>(lanes)) {
      if (lane < 0) {
        throw new IllegalArgumentException("lane must not be negative, was " + lane);
      }
      String number = Integer.toString(lane);
      // ASCII only: one byte per character.
      if (payload.length() > 0 && payload.length() + 1 + number.length() > MAX_PAYLOAD_BYTES) {
        payloads.add(payload.toString());
        payload.setLength(0);
      }
      if (payload.length() > 0) {
        payload.append(',');
      }
      payload.append(number);
    }
    if (payload.length() > 0) {
      payloads.add(payload.toString());
    }
    return payloads;
  }

  /**
   * The lanes a notification payload names (see {@link #payloads}); parts that are not lane numbers
   * are left out, so a payload from a newer or older writer never fails the reader.
   */
  public static Set<Integer> lanesIn(String payload) {
    if (payload == null || payload.isBlank()) {
      return Set.of();
    }
    Set<Integer> lanes = new TreeSet<>();
    for (String part : payload.split(",", -1)) {
      try {
        int lane = Integer.parseInt(part.trim());
        if (lane >= 0) {
          lanes.add(lane);
        }
      } catch (NumberFormatException e) {
        // Not a lane number: ignored.
      }
    }
    return Collections.unmodifiableSet(lanes);
  }

  /** CRC-32 of the key's UTF-8 bytes, as a signed int. */
  public static int stableHash(String orderingKey) {
    return KeyLocks.stableHash(orderingKey);
  }
}
