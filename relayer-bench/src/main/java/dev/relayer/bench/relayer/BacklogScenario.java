package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Format;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.report.Ratio;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;

/**
 * Scenario 5, backlog scaling: with each of {@code --backlog-sizes} rows waiting, the rate of
 * draining {@code --backlog-rows} of them, by direct dispatch (the highest ids, claimed by id) and
 * then by the sweeper (the lowest ids: it walks the table from the start).
 */
public final class BacklogScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "backlog";

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
        + " then `--backlog-rows` of them (at most half the backlog) are drained by direct"
        + " dispatch (the highest ids, fed as in scenario 3), then as many more by the sweeper"
        + " alone (set up as in scenario 3; it starts from the lowest ids). The cost per message"
        + " must not grow with the rows waiting behind it.";
  }

  @Override
  public List<Ratio> ratios() {
    List<Long> sizes = new ArrayList<>(options.backlogSizes());
    if (sizes.size() < 2) {
      return List.of();
    }
    long small = Collections.min(sizes);
    long large = Collections.max(sizes);
    String pair = Format.number(large) + " / " + Format.number(small) + " waiting";
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
    DataSource pool = db.pool("relayer", o.poolSize());
    for (long size : o.backlogSizes()) {
      long rows = Math.min(o.backlogRows(), size / 2);
      db.execute("TRUNCATE " + OutboxRows.TABLE);
      OutboxRows.insertPending(db, size);
      IdRange range = IdRange.of(db);
      String waiting = Format.number(size) + " waiting";
      // Direct first: it claims exactly the ids it is fed (the highest). The sweeper, which keeps
      // walking the table until it is stopped, then starts from the lowest ids.
      BurnDownScenario.drainDirect(
          context, pool, range, rows, key(size) + ".direct", "direct, " + waiting);
      BurnDownScenario.drainSweeper(
          context, pool, rows, key(size) + ".sweeper", "sweeper, " + waiting);
      if (rows < o.backlogRows()) {
        context.note(
            waiting
                + ": "
                + rows
                + " rows timed per path (half the backlog, less than --backlog-rows)");
      }
    }
  }

  private static String key(long size) {
    return "b" + size;
  }
}
