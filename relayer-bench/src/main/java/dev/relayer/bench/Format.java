package dev.relayer.bench;

import java.util.Locale;

/** Number formatting shared by progress lines and the report. */
public final class Format {

  private Format() {}

  /** Three significant digits for small numbers, thousands separators for large ones. */
  public static String number(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    double abs = Math.abs(value);
    if (abs >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    if (abs >= 100 || (abs >= 10 && value == Math.rint(value))) {
      return String.format(Locale.ROOT, "%.0f", value);
    }
    if (abs >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    if (abs >= 1) {
      return String.format(Locale.ROOT, "%.2f", value);
    }
    if (abs == 0) {
      return "0";
    }
    return String.format(Locale.ROOT, "%.3f", value);
  }

  /** {@code text} cut to {@code max} characters, an ellipsis marking a cut. */
  public static String truncate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }

  /** A ratio such as {@code 0.84×}. */
  public static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2f×", value);
  }
}
