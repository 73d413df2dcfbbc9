package dev.relayer.cli;

import dev.relayer.dispatch.DeadPurgeResult;
import dev.relayer.dispatch.DeadReplayResult;
import dev.relayer.dispatch.RelayerOperator;
import dev.relayer.store.ops.DeadFilter;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code relayer dead replay} and {@code relayer dead purge}: act on the dead rows a filter or
 * {@code --id} chooses. Without a filter and without {@code --id} they refuse unless {@code --all}
 * is given. They first count the rows: {@code --dry-run} prints the count and stops; without {@code
 * --yes} they ask on a terminal ({@link Confirmation}) and refuse without one.
 */
abstract class DeadActionCommand extends OperatorCommand {

  @Mixin DeadFilterOptions filter = new DeadFilterOptions();

  @Option(
      names = "--id",
      paramLabel = "<id>",
      split = ",",
      description =
          "Only these dead ids (repeat it, or separate with commas); other filters still"
              + " apply.")
  List<Long> ids = new ArrayList<>();

  @Option(names = "--all", description = "Every dead row: needed when no filter and no --id.")
  boolean all;

  @Option(names = "--dry-run", description = "Print how many rows match and change nothing.")
  boolean dryRun;

  @Option(names = "--yes", description = "Act without asking.")
  boolean yes;

  @Option(names = "--json", description = "Print the outcome as JSON.")
  boolean json;

  @Mixin OperatorNameOption operatorOption = new OperatorNameOption();

  @Override
  @Nullable String operatorName() {
    return operatorOption.name;
  }

  /** {@code replay} or {@code purge}. */
  abstract String verb();

  /** What the audit trail calls it: {@code dead-replay} or {@code dead-purge}. */
  abstract String operation();

  /** Acts on the rows {@code filter} matches and prints the outcome. */
  abstract void act(RelayerOperator operator, DeadFilter filter, long matching, PrintWriter out);

  /**
   * The JSON outcome with the fields every replay and purge prints, before the action's counts
   * (which {@link #act} adds, zero when nothing was done).
   */
  Map<String, @Nullable Object> outcome(
      RelayerOperator operator, DeadFilter filter, long matching, boolean dryRun) {
    Map<String, @Nullable Object> outcome = new LinkedHashMap<>();
    outcome.put("operation", operation());
    outcome.put("operator", operator.operatorName());
    outcome.put("dry_run", dryRun);
    outcome.put("filter", filter.toString());
    outcome.put("matched", matching);
    return outcome;
  }

  /** The outcome of a run that did nothing: a dry run, or no matching rows. */
  abstract void printNothingDone(
      RelayerOperator operator, DeadFilter filter, long matching, PrintWriter out);

  private DeadFilter chosen() {
    return filter.filter(spec, ids);
  }

  @Override
  void validate() {
    DeadFilter chosen = chosen();
    if (chosen.matchesAll() && !all) {
      throw new ParameterException(
          spec.commandLine(),
          "give a filter (--fingerprint, --transport, --destination, --type, --tenant, --key,"
              + " --reason, --failed-from, --failed-before), --id, or --all to "
              + verb()
              + " every dead row");
    }
    if (!chosen.matchesAll() && all) {
      throw new ParameterException(
          spec.commandLine(), "--all cannot be combined with a filter or --id");
    }
  }

  @Override
  int run(RelayerOperator operator, PrintWriter out) {
    DeadFilter chosen = chosen();
    long matching = operator.deadCount(chosen);
    String rows = matching + (matching == 1 ? " dead row" : " dead rows");
    String action = verb() + " " + rows + " matching " + chosen;
    if (dryRun) {
      if (json) {
        printNothingDone(operator, chosen, matching, out);
      } else {
        out.println("would " + action + "; nothing changed (--dry-run)");
      }
      return RelayerCli.EXIT_OK;
    }
    if (matching == 0) {
      if (json) {
        printNothingDone(operator, chosen, matching, out);
      } else {
        out.println("no dead rows match " + chosen + "; nothing to " + verb());
      }
      return RelayerCli.EXIT_OK;
    }
    switch (Confirmation.ask(spec, yes, action)) {
      case REFUSED -> {
        return RelayerCli.EXIT_USAGE;
      }
      case DECLINED -> {
        return fail("not confirmed; nothing changed");
      }
      case GO -> act(operator, chosen, matching, out);
    }
    return RelayerCli.EXIT_OK;
  }

  /** {@code relayer dead replay}. */
  @Command(
      name = "replay",
      description = {
        "Moves the chosen dead rows back to the outbox: pending, no attempts, the same message id,"
            + " a new outbox id; rows of one ordering key keep their order.",
        "Rows of a parked key wait behind its head: relayer parked retry|skip|release lets them go."
      })
  static final class Replay extends DeadActionCommand {

    @Override
    String verb() {
      return "replay";
    }

    @Override
    String operation() {
      return "dead-replay";
    }

    @Override
    void printNothingDone(
        RelayerOperator operator, DeadFilter filter, long matching, PrintWriter out) {
      print(outcome(operator, filter, matching, dryRun), 0, 0, 0, List.of(), out);
    }

    private static void print(
        Map<String, @Nullable Object> outcome,
        long replayed,
        long ordered,
        int batches,
        List<String> parkedKeys,
        PrintWriter out) {
      outcome.put("replayed", replayed);
      outcome.put("ordered", ordered);
      outcome.put("batches", batches);
      outcome.put("parked_keys", parkedKeys);
      out.println(Json.write(outcome));
    }

    @Override
    void act(RelayerOperator operator, DeadFilter filter, long matching, PrintWriter out) {
      DeadReplayResult result = operator.replayDead(filter);
      if (json) {
        print(
            outcome(operator, filter, matching, false),
            result.replayed(),
            result.ordered(),
            result.batches(),
            List.copyOf(result.parkedKeys()),
            out);
        return;
      }
      out.println(
          "replayed "
              + result.replayed()
              + " dead rows ("
              + result.ordered()
              + " ordered) in "
              + result.batches()
              + " batches");
      if (!result.parkedKeys().isEmpty()) {
        out.println(
            "waiting behind parked heads (relayer parked list): "
                + String.join(" ", result.parkedKeys()));
      }
    }
  }

  /** {@code relayer dead purge}. */
  @Command(name = "purge", description = "Deletes the chosen dead rows, and never another.")
  static final class Purge extends DeadActionCommand {

    @Override
    String verb() {
      return "purge";
    }

    @Override
    String operation() {
      return "dead-purge";
    }

    @Override
    void printNothingDone(
        RelayerOperator operator, DeadFilter filter, long matching, PrintWriter out) {
      Map<String, @Nullable Object> outcome = outcome(operator, filter, matching, dryRun);
      outcome.put("purged", 0L);
      outcome.put("batches", 0);
      out.println(Json.write(outcome));
    }

    @Override
    void act(RelayerOperator operator, DeadFilter filter, long matching, PrintWriter out) {
      DeadPurgeResult result = operator.purgeDead(filter);
      if (json) {
        Map<String, @Nullable Object> outcome = outcome(operator, filter, matching, false);
        outcome.put("purged", result.purged());
        outcome.put("batches", result.batches());
        out.println(Json.write(outcome));
        return;
      }
      out.println("purged " + result.purged() + " dead rows in " + result.batches() + " batches");
    }
  }
}
