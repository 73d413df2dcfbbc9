package dev.relayer.cli;

import dev.relayer.dispatch.RelayerOperator;
import dev.relayer.store.ops.ParkedKey;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code relayer parked}: ordering keys held because their head ran out of attempts — {@code list}
 * reads them; {@code retry}, {@code skip} and {@code release} act, asking first like {@link
 * DeadActionCommand}.
 */
@Command(
    name = "parked",
    description = "Lists and releases parked ordering keys (keys whose head ran out of attempts).",
    subcommands = {
      ParkedCommand.ListKeys.class,
      ParkedCommand.Retry.class,
      ParkedCommand.Skip.class,
      ParkedCommand.Release.class
    })
final class ParkedCommand {

  /** {@code relayer parked list}. */
  @Command(
      name = "list",
      description =
          "Prints every parked key by lane and key: head id, message id, attempts,"
              + " since when and the last error. It only reads.")
  static final class ListKeys extends OperatorCommand {

    @Option(names = "--lane", paramLabel = "<n>", description = "Only this lane.")
    @Nullable Integer lane;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Override
    int run(RelayerOperator operator, PrintWriter out) {
      List<ParkedKey> keys = lane == null ? operator.parkedKeys() : operator.parkedKeys(lane);
      if (json) {
        List<Object> items = new ArrayList<>();
        for (ParkedKey k : keys) {
          items.add(RowsJson.parkedKey(k));
        }
        out.println(Json.write(Map.of("parked", items)));
        return RelayerCli.EXIT_OK;
      }
      Table table =
          new Table("KEY", "LANE", "HEAD ID", "MESSAGE ID", "ATTEMPTS", "PARKED AT", "ERROR");
      for (ParkedKey k : keys) {
        table.row(
            k.orderingKey(),
            k.lane(),
            k.headId(),
            k.messageId(),
            k.attempts(),
            k.parkedAt(),
            k.lastError());
      }
      table.print(out);
      return RelayerCli.EXIT_OK;
    }
  }

  /** A command acting on the parked head of one key. */
  abstract static class HeadCommand extends OperatorCommand {

    @Parameters(paramLabel = "<key>", description = "The parked ordering key.")
    String key = "";

    @Option(names = "--yes", description = "Act without asking.")
    boolean yes;

    @Option(names = "--json", description = "Print the outcome as JSON.")
    boolean json;

    @Mixin OperatorNameOption operatorOption = new OperatorNameOption();

    @Override
    @Nullable String operatorName() {
      return operatorOption.name;
    }

    abstract String action(ParkedKey parked);

    abstract boolean act(RelayerOperator operator);

    abstract String done();

    /** What the audit trail calls it: {@code parked-retry} or {@code parked-skip}. */
    abstract String operation();

    @Override
    int run(RelayerOperator operator, PrintWriter out) {
      Optional<ParkedKey> parked = operator.parkedKey(key);
      if (parked.isEmpty()) {
        return fail("key " + key + " is not parked");
      }
      switch (Confirmation.ask(spec, yes, action(parked.get()))) {
        case REFUSED -> {
          return RelayerCli.EXIT_USAGE;
        }
        case DECLINED -> {
          return fail("not confirmed; nothing changed");
        }
        case GO -> {}
      }
      if (!act(operator)) {
        return fail("key " + key + " is no longer parked; nothing changed");
      }
      if (json) {
        Map<String, @Nullable Object> outcome = new LinkedHashMap<>();
        outcome.put("operation", operation());
        outcome.put("operator", operator.operatorName());
        outcome.put("key", key);
        outcome.put("lane", parked.get().lane());
        outcome.put("head_id", parked.get().headId());
        outcome.put("message_id", parked.get().messageId());
        outcome.put("rows", 1);
        out.println(Json.write(outcome));
      } else {
        out.println(done());
      }
      return RelayerCli.EXIT_OK;
    }
  }

  /** {@code relayer parked retry KEY}. */
  @Command(
      name = "retry",
      description = "Makes the parked head of the key pending again with fresh attempts.")
  static final class Retry extends HeadCommand {

    @Override
    String action(ParkedKey parked) {
      return "retry the parked head id="
          + parked.headId()
          + " of key "
          + parked.orderingKey()
          + " (attempts "
          + parked.attempts()
          + ")";
    }

    @Override
    boolean act(RelayerOperator operator) {
      return operator.retryHead(key);
    }

    @Override
    String operation() {
      return "parked-retry";
    }

    @Override
    String done() {
      return "retried the parked head of key " + key;
    }
  }

  /** {@code relayer parked skip KEY}. */
  @Command(
      name = "skip",
      description =
          "Moves the parked head of the key to the dead rows (reason operator); the key"
              + " goes on with its next row.")
  static final class Skip extends HeadCommand {

    @Override
    String action(ParkedKey parked) {
      return "move the parked head id="
          + parked.headId()
          + " of key "
          + parked.orderingKey()
          + " to the dead rows";
    }

    @Override
    boolean act(RelayerOperator operator) {
      return operator.moveHeadToDead(key);
    }

    @Override
    String operation() {
      return "parked-skip";
    }

    @Override
    String done() {
      return "moved the parked head of key " + key + " to the dead rows";
    }
  }

  /** {@code relayer parked release (--lane N | --all)}. */
  @Command(
      name = "release",
      description =
          "Retries every parked head of one lane, or of every lane, with fresh" + " attempts.")
  static final class Release extends OperatorCommand {

    static final class Scope {
      @Option(names = "--lane", paramLabel = "<n>", required = true, description = "This lane.")
      @Nullable Integer lane;

      @Option(names = "--all", required = true, description = "Every lane.")
      boolean all;
    }

    @ArgGroup(multiplicity = "1")
    Scope scope = new Scope();

    @Option(names = "--yes", description = "Act without asking.")
    boolean yes;

    @Option(names = "--json", description = "Print the outcome as JSON.")
    boolean json;

    @Mixin OperatorNameOption operatorOption = new OperatorNameOption();

    @Override
    @Nullable String operatorName() {
      return operatorOption.name;
    }

    private void printJson(
        RelayerOperator operator, @Nullable Integer lane, int released, PrintWriter out) {
      Map<String, @Nullable Object> outcome = new LinkedHashMap<>();
      outcome.put("operation", "parked-release");
      outcome.put("operator", operator.operatorName());
      outcome.put("lane", lane);
      outcome.put("released", released);
      out.println(Json.write(outcome));
    }

    @Override
    int run(RelayerOperator operator, PrintWriter out) {
      Integer lane = scope.lane;
      int parked = lane == null ? operator.parkedKeys().size() : operator.parkedKeys(lane).size();
      String where = lane == null ? "every lane" : "lane " + lane;
      if (parked == 0) {
        if (json) {
          printJson(operator, lane, 0, out);
        } else {
          out.println("no parked keys in " + where + "; nothing to release");
        }
        return RelayerCli.EXIT_OK;
      }
      switch (Confirmation.ask(spec, yes, "release " + parked + " parked keys of " + where)) {
        case REFUSED -> {
          return RelayerCli.EXIT_USAGE;
        }
        case DECLINED -> {
          return fail("not confirmed; nothing changed");
        }
        case GO -> {}
      }
      int released = lane == null ? operator.releaseAll() : operator.releaseLane(lane);
      if (json) {
        printJson(operator, lane, released, out);
      } else {
        out.println("released " + released + " parked keys of " + where);
      }
      return RelayerCli.EXIT_OK;
    }
  }
}
