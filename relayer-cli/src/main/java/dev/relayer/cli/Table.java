package dev.relayer.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A table for people: a header line and one line per row, columns padded to their widest cell and
 * separated by two spaces; {@code null} cells show as {@code -}, and line breaks in a cell as
 * {@code \n} (see {@link ErrorLine}), so that each row stays one line.
 */
final class Table {

  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... header) {
    this.header = List.of(header);
  }

  Table row(@Nullable Object... cells) {
    List<String> row = new ArrayList<>(cells.length);
    for (Object cell : cells) {
      row.add(cell == null ? "-" : ErrorLine.of(cell.toString()));
    }
    rows.add(row);
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    line(out, header, widths);
    for (List<String> row : rows) {
      line(out, row, widths);
    }
  }

  private static void line(PrintWriter out, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      line.append(cells.get(i));
      if (i < cells.size() - 1) {
        line.append(" ".repeat(widths[i] - cells.get(i).length() + 2));
      }
    }
    out.println(line);
  }
}
