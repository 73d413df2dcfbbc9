package dev.relayer.micrometer.internal;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tag's values, bounded: raw values go through {@code mapping}, and the first {@code max}
 * distinct results are used as they are; every later result becomes {@link #OTHER}. So no input — a
 * table full of distinct transport names, a mapping that returns its input — makes more than {@code
 * max + 1} series. Logs once, at WARN, when the bound is reached. The answers for up to {@link
 * #REMEMBERED} raw values are remembered, so the mapping runs once per raw value while that many or
 * fewer are seen.
 */
public final class TagValues {

  /** The value that stands for every value past the bound. */
  public static final String OTHER = "other";

  /** Raw values whose answer is remembered. */
  static final int REMEMBERED = 4096;

  private static final Logger log = LoggerFactory.getLogger(TagValues.class);

  private final String tag;
  private final int max;
  private final Function<String, String> mapping;
  private final Map<String, String> answers = new ConcurrentHashMap<>();
  private final Set<String> admitted = ConcurrentHashMap.newKeySet();
  private volatile boolean warned;

  public TagValues(String tag, int max, Function<String, String> mapping) {
    this.tag = tag;
    this.max = max;
    this.mapping = mapping;
  }

  /** The tag value for {@code raw}. */
  public String of(String raw) {
    String known = answers.get(raw);
    return known != null ? known : answer(raw);
  }

  private synchronized String answer(String raw) {
    String mapped = mapping.apply(raw);
    if (mapped == null || mapped.isBlank()) {
      mapped = OTHER;
    }
    String value;
    if (admitted.contains(mapped) || mapped.equals(OTHER)) {
      value = mapped;
    } else if (admitted.size() < max) {
      admitted.add(mapped);
      value = mapped;
    } else {
      value = OTHER;
      if (!warned) {
        warned = true;
        log.warn(
            "Relayer metrics: tag {} reached its bound of {} values; further values are tagged {}",
            tag,
            max,
            OTHER);
      }
    }
    if (answers.size() < REMEMBERED) {
      answers.put(raw, value);
    }
    return value;
  }
}
