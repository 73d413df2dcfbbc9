package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Format;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.db.StatementCosts;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.report.Ratio;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Scenario 5, backlog scaling: with each of {@code --backlog-sizes} rows waiting, the rate of
 * draining {@code --backlog-rows} of them, by direct dispatch (the highest ids, claimed by id) and
 * then by the sweeper (the lowest ids: it walks the table from the start). A small backlog is
 * drained in rounds of half of it per path, each on a freshly loaded table, so that every size is
 * timed over about as many rows; each round's clock starts after its first tenth is delivered.
 */
public final class BacklogScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "backlog";

  /** The first 1/10 of each round's rows is delivered before the clock starts. */
  private static final long UNTIMED_SHARE = 10;

  private final BenchOptions options;

  public BacklogScenario(BenchOptions options) {
    this.options = options;
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "5. Backlog scaling";
  }

  @Override
  public String description() {
    return "For each backlog size, a fresh table is loaded with that many rows and settled;"
        + " then `--backlog-rows` of them are drained by direct dispatch (the highest ids, fed"
        + " as in scenario 3), then as many more by the sweeper alone (set up as in scenario 3;"
        + " it starts from the lowest ids). A backlog smaller than twice `--backlog-rows` is"
        + " drained in rounds of half the backlog per path, each round on a table loaded afresh"
        + " to the full size, so that every size is timed over about as many rows. In each"
        + " round and path the clock starts when the first tenth of the round's rows has been"
        + " delivered (starting the system and its first claims are left out, alike for every"
        + " size); a size's rate is the rows delivered after that over the sum of the rounds'"
        + " times. The cost per message must not grow with the rows waiting behind it. Where"
        + " the server has `pg_stat_statements` loaded (the harness's cluster does), each size"
        + " and path also gets the server's shared buffer accesses and execution time per message"
        + " over all the path's statements (rounds added up, their untimed first tenth included),"
        + " the three statements with the most buffer accesses, and the B-tree levels of the"
        + " outbox's indexes after loading (`pageinspect`).";
  }

  @Override
  public List<Ratio> ratios() {
    List<Long> sizes = new ArrayList<>(options.backlogSizes());
    if (sizes.size() < 2) {
      return List.of();
    }
    long small = Collections.min(sizes);
    long large = Collections.max(sizes);
    String pair =
        Format.number((double) large) + " / " + Format.number((double) small) + " waiting";
    return List.of(
        new Ratio(
            "sweeper rate, " + pair,
            ID + "." + key(large) + ".sweeper.msgs",
            ID + "." + key(small) + ".sweeper.msgs",
            "≥ 0.9"),
        new Ratio(
            "direct rate, " + pair,
            ID + "." + key(large) + ".direct.msgs",
            ID + "." + key(small) + ".direct.msgs",
            "≥ 0.9"));
  }

  @Override
  public boolean warmsUp() {
    return true;
  }

  @Override
  public void warmUp(ScenarioContext context) throws Exception {
    BurnDownScenario.warmUpBothPaths(context);
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    ScenarioDatabase db = context.database();
    BenchOptions o = context.options();
    db.installRelayerSchema();
    Optional<String> noStatements = StatementCosts.enable(db);
    noStatements.ifPresent(
        why -> context.note("pg_stat_statements is not available, so no statement costs: " + why));
    boolean costs = noStatements.isEmpty();
    DataSource pool = db.pool("relayer", o.poolSize());
    for (long size : o.backlogSizes()) {
      long perRound = Math.max(1, Math.min(o.backlogRows(), size / 2));
      long rounds = (o.backlogRows() + perRound - 1) / perRound;
      long untimed = perRound / UNTIMED_SHARE;
      String waiting = Format.number((double) size) + " waiting";
      BurnDownDriver.Timing direct = BurnDownDriver.Timing.NONE;
      BurnDownDriver.Timing sweeper = BurnDownDriver.Timing.NONE;
      List<StatementCosts.Cost> directCosts = List.of();
      List<StatementCosts.Cost> sweeperCosts = List.of();
      Map<String, Integer> levels = Map.of();
      for (long round = 0; round < rounds; round++) {
        db.execute("TRUNCATE " + OutboxRows.TABLE);
        OutboxRows.insertPending(db, size);
        IdRange range = IdRange.of(db);
        if (costs && round == 0) {
          levels = StatementCosts.outboxIndexLevels(db);
        }
        // Direct first: it claims exactly the ids it is fed (the highest). The sweeper, which
        // keeps walking the table until it is stopped, then starts from the lowest ids.
        if (costs) {
          StatementCosts.reset(db);
        }
        direct =
            direct.plus(
                BurnDownScenario.timeDirect(
                    context, pool, range, perRound, untimed, "direct, " + waiting));
        if (costs) {
          directCosts = StatementCosts.plus(directCosts, StatementCosts.read(db));
          StatementCosts.reset(db);
        }
        sweeper =
            sweeper.plus(
                BurnDownScenario.timeSweeper(
                    context, pool, perRound, untimed, "sweeper, " + waiting));
        if (costs) {
          sweeperCosts = StatementCosts.plus(sweeperCosts, StatementCosts.read(db));
        }
      }
      direct.record(context, key(size) + ".direct", "direct, " + waiting);
      sweeper.record(context, key(size) + ".sweeper", "sweeper, " + waiting);
      if (costs) {
        long drained = perRound * rounds;
        recordCosts(context, key(size) + ".direct", "direct, " + waiting, directCosts, drained);
        recordCosts(context, key(size) + ".sweeper", "sweeper, " + waiting, sweeperCosts, drained);
        if (!levels.isEmpty()) {
          context.note(waiting + ": B-tree levels above the leaves " + levels);
        }
      }
      if (rounds > 1) {
        context.note(
            waiting
                + ": "
                + rounds
                + " rounds of "
                + perRound
                + " rows per path (half the backlog each), each on a freshly loaded table");
      }
    }
  }

  /**
   * Records the server's shared buffer accesses and execution time per message drained, over every
   * statement of the path, and notes the three statements with the most buffer accesses.
   */
  private static void recordCosts(
      ScenarioContext context,
      String key,
      String label,
      List<StatementCosts.Cost> costs,
      long drained) {
    long blocks = costs.stream().mapToLong(StatementCosts.Cost::blocks).sum();
    double millis = costs.stream().mapToDouble(StatementCosts.Cost::millis).sum();
    context.record(
        key + ".blocks",
        label + ": buffer accesses per message",
        "blocks",
        (double) blocks / drained);
    context.record(
        key + ".exec", label + ": server execution per message", "µs", millis * 1e3 / drained);
    StringBuilder top = new StringBuilder(label + ", per message drained:");
    for (StatementCosts.Cost cost : costs.subList(0, Math.min(3, costs.size()))) {
      top.append(
          String.format(
              Locale.ROOT,
              " `%s` %.2f blocks, %.2f reads, %.1f µs (%s calls);",
              Format.truncate(cost.query(), 90),
              (double) cost.blocks() / drained,
              (double) cost.reads() / drained,
              cost.millis() * 1e3 / drained,
              String.format(Locale.ROOT, "%,d", cost.calls())));
    }
    context.note(top.toString());
  }

  private static String key(long size) {
    return "b" + size;
  }
}
