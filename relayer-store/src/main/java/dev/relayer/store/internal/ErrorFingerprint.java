package dev.relayer.store.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A stable hash of an error's shape, for grouping dead rows: the error text (by convention {@code
 * ClassName: message}) with UUIDs, hex runs and numbers replaced by placeholders, hashed with
 * SHA-256 and cut to 16 hex digits. "Timeout after 30 ms on id 17" and "Timeout after 45 ms on id
 * 18" share a fingerprint.
 */
public final class ErrorFingerprint {

  private static final Pattern UUIDS =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern HEX = Pattern.compile("\\b0x[0-9a-fA-F]+\\b|\\b[0-9a-fA-F]{12,}\\b");
  private static final Pattern NUMBERS = Pattern.compile("\\d+");

  private ErrorFingerprint() {}

  /** The fingerprint of {@code error}; {@code null} for {@code null}. */
  public static @Nullable String of(@Nullable String error) {
    if (error == null) {
      return null;
    }
    String shape = UUIDS.matcher(error).replaceAll("<uuid>");
    shape = HEX.matcher(shape).replaceAll("<hex>");
    shape = NUMBERS.matcher(shape).replaceAll("<n>");
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(shape.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
