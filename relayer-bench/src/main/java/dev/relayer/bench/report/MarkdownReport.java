package dev.relayer.bench.report;

import dev.relayer.bench.Format;
import dev.relayer.bench.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders a run as Markdown: how it was made (command, machine, settings), then one section per
 * scenario with the median, range and per-repetition values of every figure, its ratios, and its
 * notes.
 */
public final class MarkdownReport {

  /** First line of the results section in a docs file. */
  public static final String BEGIN = "<!-- relayer-bench results: begin -->";

  /** Last line of the results section in a docs file. */
  public static final String END = "<!-- relayer-bench results: end -->";

  private MarkdownReport() {}

  /**
   * The report.
   *
   * @param run how the run was made
   * @param machine the machine it ran on
   * @param scenarios the scenarios that ran, in their first repetition's order
   * @param method how the pipeline scenarios measure, as Markdown
   * @param results every figure
   */
  public static String render(
      RunInfo run, MachineInfo machine, String method, List<Scenario> scenarios, Results results) {
    StringBuilder md = new StringBuilder();
    md.append("## Results\n\n");
    md.append("Run started ")
        .append(run.started().truncatedTo(ChronoUnit.SECONDS))
        .append(" and took ")
        .append(minutes(run.elapsed()))
        .append(": ")
        .append(results.repetitions())
        .append(" repetitions; in each, every scenario ran once on a fresh database, the order")
        .append(" rotated by one scenario per repetition. Medians and ranges (min–max) are over")
        .append(" the repetitions; a ratio is computed within each repetition, then summarised.")
        .append(run.quick() ? " **Quick (smoke) run: sizes and windows are too small for" : "")
        .append(run.quick() ? " conclusions.**" : "")
        .append("\n\n");
    md.append("```\n").append(run.command()).append("\n```\n\n");
    md.append("| machine | |\n|---|---|\n");
    for (Map.Entry<String, String> row : machine.rows().entrySet()) {
      md.append("| ")
          .append(row.getKey())
          .append(" | ")
          .append(cell(row.getValue()))
          .append(" |\n");
    }
    md.append("| load average (1/5/15 min) | at start ")
        .append(run.loadAtStart())
        .append(", at end ")
        .append(run.loadAtEnd())
        .append(" |\n\n");
    md.append("### Method\n\n").append(method).append("\n\n");
    for (Scenario scenario : scenarios) {
      section(md, scenario, results);
    }
    return md.toString();
  }

  /**
   * Replaces the lines between {@link #BEGIN} and {@link #END} in {@code docs} with {@code report}.
   */
  public static void splice(Path docs, String report) throws IOException {
    String text = Files.readString(docs);
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IOException(
          docs + " has no results section: add the lines " + BEGIN + " and " + END);
    }
    String updated =
        text.substring(0, begin + BEGIN.length()) + "\n\n" + report + "\n" + text.substring(end);
    Files.writeString(docs, updated);
  }

  private static void section(StringBuilder md, Scenario scenario, Results results) {
    md.append("### ").append(scenario.title()).append("\n\n");
    md.append(scenario.description()).append("\n\n");
    List<Results.Series> series = results.series(scenario.id());
    Map<String, String> targets = scenario.targets();
    if (!series.isEmpty()) {
      md.append("| measurement | unit | median | range | per repetition |");
      md.append(targets.isEmpty() ? "\n" : " target |\n");
      md.append("|---|---|---:|---:|---|").append(targets.isEmpty() ? "\n" : "---|\n");
      for (Results.Series s : series) {
        List<Double> values = s.values();
        Summary summary = Summary.of(values);
        md.append("| ")
            .append(cell(s.label()))
            .append(" | ")
            .append(s.unit())
            .append(" | ")
            .append(Format.number(summary.median()))
            .append(" | ")
            .append(Format.number(summary.min()))
            .append(" – ")
            .append(Format.number(summary.max()))
            .append(" | ")
            .append(values.stream().map(Format::number).collect(Collectors.joining(", ")))
            .append(" |");
        if (!targets.isEmpty()) {
          md.append(' ').append(targets.getOrDefault(s.key(), "")).append(" |");
        }
        md.append('\n');
      }
      md.append('\n');
    }
    List<Ratio> ratios = scenario.ratios();
    if (!ratios.isEmpty()) {
      md.append("| ratio (same repetition) | median | range | target |\n");
      md.append("|---|---:|---:|---|\n");
      for (Ratio ratio : ratios) {
        List<Double> values = results.ratios(ratio);
        md.append("| ").append(cell(ratio.label())).append(" | ");
        if (values.isEmpty()) {
          md.append("n/a | n/a | ");
        } else {
          Summary summary = Summary.of(values);
          md.append(Format.ratio(summary.median()))
              .append(" | ")
              .append(Format.ratio(summary.min()))
              .append(" – ")
              .append(Format.ratio(summary.max()))
              .append(" | ");
        }
        md.append(ratio.target().isEmpty() ? "—" : ratio.target()).append(" |\n");
      }
      md.append('\n');
    }
    List<String> notes = results.notes(scenario.id());
    if (!notes.isEmpty()) {
      md.append("Notes:\n\n");
      for (String note : notes) {
        md.append("- ").append(note).append('\n');
      }
      md.append('\n');
    }
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }

  private static String minutes(Duration d) {
    long s = d.toSeconds();
    return s < 120 ? s + " s" : (s / 60) + " min " + (s % 60) + " s";
  }

  /**
   * How a run was made.
   *
   * @param command the command line
   * @param quick whether it was a quick run
   * @param started when it started
   * @param elapsed how long it took
   * @param loadAtStart load average when it started
   * @param loadAtEnd load average when it ended
   */
  public record RunInfo(
      String command,
      boolean quick,
      Instant started,
      Duration elapsed,
      String loadAtStart,
      String loadAtEnd) {}
}
