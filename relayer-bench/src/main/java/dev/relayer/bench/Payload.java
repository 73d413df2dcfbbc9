package dev.relayer.bench;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * The one message every scenario sends: a 256-byte body and about 130 bytes of headers (a W3C
 * {@code traceparent}, a content type and a source), to transport {@value #TRANSPORT}, destination
 * {@value #DESTINATION}, type {@value #MESSAGE_TYPE}. The body is ASCII, so the same 256 bytes can
 * be handed to the peer as a {@code String} (its serializer has no binary type that is not inflated
 * several times).
 */
public final class Payload {

  public static final String TRANSPORT = "memory";
  public static final String DESTINATION = "orders";
  public static final String MESSAGE_TYPE = "OrderPlaced";

  /** Body length in bytes. */
  public static final int BODY_BYTES = 256;

  private static final String BODY_TEXT = makeBody();
  private static final Map<String, String> HEADERS = makeHeaders();
  private static final String HEADERS_JSON = json(HEADERS);
  private static final String UNSAMPLED_HEADERS_JSON = json(unsampledHeaders());

  private Payload() {}

  /** The body as bytes (a fresh copy). */
  public static byte[] body() {
    return BODY_TEXT.getBytes(StandardCharsets.US_ASCII);
  }

  /** The body as text (ASCII). */
  public static String bodyText() {
    return BODY_TEXT;
  }

  /** The body as a PostgreSQL {@code bytea} hex literal ({@code \x...}). */
  public static String bodyHex() {
    return "\\x" + HexFormat.of().formatHex(body());
  }

  /** The headers, in a stable order. */
  public static Map<String, String> headers() {
    return HEADERS;
  }

  private static Map<String, String> makeHeaders() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    headers.put("content-type", "application/json");
    headers.put("source", "orders-api");
    return Map.copyOf(headers);
  }

  /** The headers as compact JSON text (the shape Relayer stores in its {@code jsonb} column). */
  public static String headersJson() {
    return HEADERS_JSON;
  }

  /**
   * {@link #headersJson()} with the {@code traceparent}'s sampled flag cleared ({@code -00}): the
   * headers of a message written under a trace its sampler dropped. The same size.
   */
  public static String unsampledHeadersJson() {
    return UNSAMPLED_HEADERS_JSON;
  }

  private static String makeBody() {
    Random random = new Random(42);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder body = new StringBuilder("{\"order\":\"");
    while (body.length() < BODY_BYTES - 2) {
      body.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return body.append("\"}").toString();
  }

  /**
   * {@link #headers()} with the {@code traceparent}'s sampled flag cleared ({@code -00}): the
   * headers of a message written under a trace its sampler dropped.
   */
  public static Map<String, String> unsampledHeaders() {
    Map<String, String> copy = new LinkedHashMap<>(HEADERS);
    String traceparent = copy.get("traceparent");
    copy.put("traceparent", traceparent.substring(0, traceparent.length() - 2) + "00");
    return Map.copyOf(copy);
  }

  private static String json(Map<String, String> headers) {
    StringBuilder json = new StringBuilder("{");
    // Stable order for a stable size: traceparent, content-type, source.
    for (String key : new String[] {"traceparent", "content-type", "source"}) {
      if (json.length() > 1) {
        json.append(',');
      }
      json.append('"').append(key).append("\":\"").append(headers.get(key)).append('"');
    }
    return json.append('}').toString();
  }
}
