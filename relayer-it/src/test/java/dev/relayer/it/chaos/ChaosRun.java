package dev.relayer.it.chaos;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.it.chaos.ChaosReport.Committed;
import dev.relayer.it.chaos.ChaosReport.Dead;
import dev.relayer.it.chaos.ChaosReport.Left;
import dev.relayer.it.chaos.Fleet.Role;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.PrivatePostgres;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.transport.TcpProxy;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * One chaos run, start to verdict: a PostgreSQL of its own ({@link PrivatePostgres}) with Relayer's
 * schema, a fresh queue on the real RabbitMQ reached by the children through a {@link TcpProxy},
 * dispatcher and producer child JVMs ({@link Fleet}), a consumer recording every delivery ({@link
 * DeliveryLog}); then {@code duration} of faults, a drain bounded by {@code drainTimeout}, and the
 * checks of {@link ChaosReport}.
 *
 * <p>Faults come in rounds, each a shuffled list of: SIGKILL a dispatcher, SIGKILL a producer,
 * crash PostgreSQL ({@code pg_ctl stop -m immediate}) and start it 1–3 s later, cut the transport
 * for 2–4 s, and (with poison on: first in the first two rounds, anywhere in every third round
 * after) ask a producer to commit a poison message, unordered and ordered in turn. Faults are 2–5 s
 * apart. Killed processes come back after 0.5–2.5 s, halted ones after 0.3 s.
 */
final class ChaosRun {

  private static final Table<Record> OUTBOX = DSL.table(DSL.name("public", "relayer_outbox"));
  private static final Table<Record> DEAD = DSL.table(DSL.name("public", "relayer_outbox_dead"));
  private static final Field<UUID> MESSAGE_ID = DSL.field(DSL.name("message_id"), SQLDataType.UUID);
  private static final Field<String> ORDERING_KEY =
      DSL.field(DSL.name("ordering_key"), SQLDataType.CLOB);
  private static final Field<String> STATUS = DSL.field(DSL.name("status"), SQLDataType.CLOB);
  private static final Field<Integer> ATTEMPTS =
      DSL.field(DSL.name("attempts"), SQLDataType.INTEGER);
  private static final Field<String> REASON = DSL.field(DSL.name("reason"), SQLDataType.CLOB);

  private enum Fault {
    KILL_DISPATCHER,
    KILL_PRODUCER,
    RESTART_POSTGRES,
    CUT_TRANSPORT,
    POISON
  }

  private final ChaosSettings settings;
  private final Path runDirectory;
  private final Random random;
  private int postgresRestarts;
  private int transportCuts;
  private int poisonUnordered;
  private int poisonOrdered;

  ChaosRun(ChaosSettings settings, Path runDirectory) {
    this.settings = settings;
    this.runDirectory = runDirectory;
    this.random = new Random(settings.seed());
  }

  /** Where {@link PoisonTransport} logs the poison ids of each batch it halted on. */
  private Path haltLog() {
    return runDirectory.resolve("poison-halts.log");
  }

  /** A directory for one run's logs and report under {@code target/chaos}. */
  static Path newRunDirectory() throws java.io.IOException {
    String stamp =
        DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now());
    return Files.createDirectories(Path.of("target", "chaos", "run-" + stamp));
  }

  /**
   * The chaos cluster: {@code fsync} off changes nothing for what the run does to it ({@link
   * PrivatePostgres#crash()} kills the server processes, not the machine, and the operating system
   * keeps every write they made); the binaries come from {@code -Drelayer.chaos.pgBin} when set.
   */
  private static PrivatePostgres.Config postgresConfig() {
    String bin = System.getProperty("relayer.chaos.pgBin");
    return new PrivatePostgres.Config(
        "chaos",
        "chaos",
        Map.of("fsync", "off", "max_connections", "200"),
        bin == null || bin.isBlank() ? Optional.empty() : Optional.of(Path.of(bin.trim())));
  }

  ChaosReport run() throws Exception {
    URI broker = URI.create(RabbitMqFixture.brokerUri());
    try (PrivatePostgres postgres = PrivatePostgres.start(postgresConfig());
        RabbitMqFixture rabbit = RabbitMqFixture.direct(false);
        TcpProxy proxy =
            TcpProxy.start(broker.getHost(), broker.getPort() > 0 ? broker.getPort() : 5672)) {
      DSLContext dsl = DSL.using(postgres.dataSource(), SQLDialect.POSTGRES);
      RelayerSchemaInstaller.applyScript(postgres.dataSource(), SchemaOptions.defaults());
      ChaosTables.create(dsl);
      String queue = rabbit.declareQueue(Map.of());
      List<String> args =
          List.of(
              "jdbcUrl=" + postgres.jdbcUrl(),
              "amqpUri=" + viaProxy(broker, proxy),
              "destination=/" + queue,
              "pauseMillis=" + settings.producerPause().toMillis(),
              "haltLog=" + haltLog().toAbsolutePath());
      try (DeliveryLog deliveries = DeliveryLog.consume(rabbit.admin(), queue);
          Fleet fleet = new Fleet(runDirectory, random)) {
        for (int i = 1; i <= settings.dispatchers(); i++) {
          fleet.add(Role.DISPATCHER, "dispatcher-" + i, args);
        }
        for (int i = 1; i <= settings.producers(); i++) {
          fleet.add(Role.PRODUCER, "producer-" + i, args);
        }
        awaitFirstDelivery(deliveries);

        long faultStart = System.nanoTime();
        injectFaults(fleet, postgres, proxy, dsl);
        Duration faultPhase = Duration.ofNanos(System.nanoTime() - faultStart);

        long drainStart = System.nanoTime();
        boolean drained = drain(fleet, dsl, deliveries);
        Duration drain = Duration.ofNanos(System.nanoTime() - drainStart);
        String endState = endState(dsl);
        fleet.stop(Role.DISPATCHER);
        awaitQuiet(deliveries);

        ChaosReport.Faults faults =
            new ChaosReport.Faults(
                fleet.kills(Role.DISPATCHER),
                fleet.kills(Role.PRODUCER),
                postgresRestarts,
                transportCuts,
                poisonUnordered,
                poisonOrdered,
                fleet.poisonHalts(Role.DISPATCHER),
                fleet.poisonHalts(Role.PRODUCER),
                fleet.starts(Role.DISPATCHER),
                fleet.starts(Role.PRODUCER),
                fleet.unexpectedExits(),
                fleet.killsNotBySigkill());
        ChaosReport report =
            ChaosReport.of(
                new ChaosReport.Run(settings, faultPhase, drain, drained),
                committed(dsl),
                deliveries.snapshot(),
                dsl.select(MESSAGE_ID, ATTEMPTS, REASON)
                    .from(DEAD)
                    .fetch(r -> new Dead(r.value1(), r.value2(), r.value3())),
                dsl.select(MESSAGE_ID, ORDERING_KEY, STATUS, ATTEMPTS)
                    .from(OUTBOX)
                    .fetch(r -> new Left(r.value1(), r.value2(), r.value3(), r.value4())),
                faults,
                Files.exists(haltLog()) ? Files.readAllLines(haltLog(), UTF_8) : List.of(),
                ChaosNode.MAX_ATTEMPTS);
        if (!report.problems().isEmpty()) {
          report = report.withAppendix(endState);
        }
        Files.writeString(runDirectory.resolve("report.txt"), report.text(), UTF_8);
        Files.writeString(Path.of("target", "chaos-report.txt"), report.text(), UTF_8);
        return report;
      }
    }
  }

  private void injectFaults(Fleet fleet, PrivatePostgres postgres, TcpProxy proxy, DSLContext dsl)
      throws Exception {
    long end = System.nanoTime() + settings.duration().toNanos();
    for (int round = 0; System.nanoTime() < end; round++) {
      List<Fault> faults =
          new ArrayList<>(
              List.of(
                  Fault.KILL_DISPATCHER,
                  Fault.KILL_PRODUCER,
                  Fault.RESTART_POSTGRES,
                  Fault.CUT_TRANSPORT));
      Collections.shuffle(faults, random);
      if (settings.poison() && round < 2) {
        // First, so that the short run's poison has most of the run to end dead or parked.
        faults.add(0, Fault.POISON);
      } else if (settings.poison() && round % 3 == 0) {
        faults.add(random.nextInt(faults.size() + 1), Fault.POISON);
      }
      for (Fault fault : faults) {
        Thread.sleep(2_000 + random.nextInt(3_000));
        if (System.nanoTime() >= end) {
          return;
        }
        switch (fault) {
          case KILL_DISPATCHER -> fleet.kill(Role.DISPATCHER);
          case KILL_PRODUCER -> fleet.kill(Role.PRODUCER);
          case RESTART_POSTGRES -> {
            postgres.crash();
            postgresRestarts++;
            Thread.sleep(1_000 + random.nextInt(2_000));
            postgres.startServer();
          }
          case CUT_TRANSPORT -> {
            proxy.cut();
            transportCuts++;
            Thread.sleep(2_000 + random.nextInt(2_000));
            proxy.restore();
          }
          case POISON -> plantPoison(dsl);
        }
      }
    }
  }

  /** Asks the producers to commit one poison message; unordered and ordered in turn. */
  private void plantPoison(DSLContext dsl) {
    boolean ordered = (poisonUnordered + poisonOrdered) % 2 == 1;
    dsl.insertInto(ChaosTables.POISON_REQUESTS)
        .columns(ChaosTables.REQUEST_ORDERED)
        .values(ordered)
        .execute();
    if (ordered) {
      poisonOrdered++;
    } else {
      poisonUnordered++;
    }
  }

  /**
   * Lets the producers take the last poison requests, stops them, then waits until no row is
   * pending and every committed message arrived.
   */
  private boolean drain(Fleet fleet, DSLContext dsl, DeliveryLog deliveries) throws Exception {
    long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
    while (dsl.fetchCount(ChaosTables.POISON_REQUESTS) > 0 && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    fleet.stop(Role.PRODUCER);
    while (System.nanoTime() < deadline) {
      if (dsl.fetchCount(OUTBOX, STATUS.eq("pending")) == 0) {
        Set<UUID> delivered = new HashSet<>();
        deliveries.snapshot().forEach(d -> delivered.add(d.messageId()));
        boolean all =
            committed(dsl).stream().allMatch(c -> c.poison() || delivered.contains(c.messageId()));
        if (all) {
          return true;
        }
      }
      Thread.sleep(1_000);
    }
    return false;
  }

  /**
   * The rows left in the outbox when the drain ended, before the dispatchers stop (oldest first, at
   * most 12) with what decides whether a pass may take them, every lease and every session not
   * idle, against the database clock: a failed run's report ends with it, so that a stall can be
   * read from the report alone.
   */
  private static String endState(DSLContext dsl) {
    StringBuilder text = new StringBuilder("state at the end (database clock):\n");
    dsl.resultQuery(
            "select id, lane, left(coalesce(ordering_key, '-'), 16), status, attempts,"
                + " left(coalesce(last_error, '-'), 40),"
                + " round(extract(epoch from claim_expires_at - now())::numeric, 1),"
                + " round(extract(epoch from deliver_at - now())::numeric, 1)"
                + " from public.relayer_outbox order by id limit 12")
        .fetch()
        .forEach(
            r ->
                text.append(
                    String.format(
                        "  row id=%s lane=%s key=%s %s attempts=%s error=%s claim-in=%s"
                            + " deliver-in=%s%n",
                        r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6),
                        r.get(7))));
    dsl.resultQuery(
            "select name, owner, round(extract(epoch from expires_at - now())::numeric, 1)"
                + " from public.relayer_leases order by name")
        .fetch()
        .forEach(
            r ->
                text.append(
                    String.format(
                        "  lease %s owner=%s expires-in=%s%n", r.get(0), r.get(1), r.get(2))));
    dsl.resultQuery(
            "select a.pid, a.state, round(extract(epoch from now() - a.xact_start)::numeric, 1),"
                + " a.wait_event_type, a.wait_event, left(a.query, 60),"
                + " (select string_agg(distinct l.mode, ',') from pg_locks l where l.pid = a.pid)"
                + " from pg_stat_activity a"
                + " where a.backend_type = 'client backend' and a.pid <> pg_backend_pid()"
                + " and a.state <> 'idle' order by a.xact_start")
        .fetch()
        .forEach(
            r ->
                text.append(
                    String.format(
                        "  session pid=%s %s xact-age=%s wait=%s/%s locks=%s query=%s%n",
                        r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(6), r.get(5))));
    return text.toString();
  }

  private static List<Committed> committed(DSLContext dsl) {
    return dsl.select(
            ChaosTables.MESSAGE_ID,
            ChaosTables.OUTBOX_ID,
            ChaosTables.ORDERING_KEY,
            ChaosTables.POISON)
        .from(ChaosTables.COMMITTED)
        .fetch(r -> new Committed(r.value1(), r.value2(), r.value3(), r.value4()));
  }

  private static void awaitFirstDelivery(DeliveryLog deliveries) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (deliveries.size() == 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no delivery within 120 s of starting the processes");
      }
      Thread.sleep(200);
    }
  }

  /** Waits until a second passes without a delivery (at most 15 s). */
  private static void awaitQuiet(DeliveryLog deliveries) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (System.nanoTime() < deadline
        && System.nanoTime() - deliveries.lastArrivalNanos() < Duration.ofSeconds(1).toNanos()) {
      Thread.sleep(100);
    }
  }

  private static String viaProxy(URI broker, TcpProxy proxy) {
    return broker.getScheme()
        + "://"
        + (broker.getRawUserInfo() == null ? "" : broker.getRawUserInfo() + "@")
        + "127.0.0.1:"
        + proxy.port()
        + (broker.getRawPath() == null ? "" : broker.getRawPath());
  }
}
