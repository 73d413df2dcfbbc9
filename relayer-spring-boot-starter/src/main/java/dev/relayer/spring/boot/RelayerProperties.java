package dev.relayer.spring.boot;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.Retention;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.StoreOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relayer.*} properties. Every option left unset takes the default of the Relayer option
 * it sets (named in each description); durations take Spring's forms ({@code 30s}, {@code 500ms},
 * {@code 5m}, {@code 7d}, ISO-8601 {@code PT30S}; a bare number is milliseconds). Names bind
 * relaxed: {@code relayer.maintenance.recovery-delay}, {@code relayer.maintenance.recoveryDelay}
 * and the environment variable {@code RELAYER_MAINTENANCE_RECOVERY_DELAY} are one property.
 *
 * <p>The conversions ({@link #storeOptions()}, {@link #dispatchOptions()}, ...) validate with the
 * Relayer options' own rules and throw {@link InvalidInputException} naming each offending property
 * by its {@code relayer.*} name; the auto-configuration calls them while it creates the {@code
 * Relayer}, so a bad value fails start-up.
 *
 * @param enabled whether the auto-configuration creates anything at all; default true
 * @param schema schema of Relayer's tables; default public
 * @param prefix prefix of Relayer's table names; default relayer_; empty for none
 * @param laneCount number of ordered lanes; 1–4096, default 16. All instances sharing the tables
 *     must agree on it
 * @param laneNotifications whether commits that wrote ordered rows notify other instances ({@code
 *     pg_notify} after the commit); default true
 * @param owner this instance's identity in the maintenance and lane leases; unique among live
 *     instances; default host/pid/random
 * @param externalTransports names of transports that other instances deliver and this one only
 *     writes to: an enqueue naming one is accepted without a Transport bean of that name; default
 *     none. An enqueue naming a transport neither registered here nor listed here fails at once
 *     (see {@code Relayer}'s "Transport names")
 * @param acceptAnyTransport turns that check off: an enqueue accepts any transport name; default
 *     false. For a writer-only instance that cannot list the names; prefer externalTransports
 * @param dispatch direct dispatch (relayer.dispatch.*)
 * @param maintenance the sweeper and cleanup (relayer.maintenance.*)
 * @param lanes the ordered lanes (relayer.lanes.*)
 * @param health the health thresholds (relayer.health.*)
 */
@ConfigurationProperties("relayer")
public record RelayerProperties(
    @DefaultValue("true") boolean enabled,
    String schema,
    String prefix,
    Integer laneCount,
    Boolean laneNotifications,
    String owner,
    List<String> externalTransports,
    Boolean acceptAnyTransport,
    @DefaultValue Dispatch dispatch,
    @DefaultValue Maintenance maintenance,
    @DefaultValue Lanes lanes,
    @DefaultValue Health health) {

  /**
   * Direct dispatch, and the sends, retries and attempts of maintenance and lanes too ({@code
   * DispatchOptions}).
   *
   * @param enabled whether this instance delivers; default true. When false it only writes: no
   *     transport is registered, so neither direct dispatch nor maintenance nor lanes run here, and
   *     other instances deliver its rows (their sweeper after recoveryDelay, their lanes)
   * @param claimDuration how long a direct-dispatch or lane claim holds a row; default 30 s
   * @param sendTimeout bounded wait for one transport batch; shorter than claimDuration by at least
   *     1 s; default 10 s
   * @param maxAttempts attempts before a row goes dead (ordered: parks); 1–1000, default 10
   * @param backoffInitial first retry delay; default 1 s
   * @param backoffMax longest retry delay; default 5 min
   * @param queueCapacity ids waiting for a worker before hand-offs are dropped to the sweeper;
   *     1–1,000,000, default 10,000
   * @param workers direct-dispatch worker threads; 1–64, default 2
   * @param claimBatchSize most rows per direct-dispatch claim; 1–10,000, default 500
   * @param shutdownTimeout how long close waits for in-flight sends; default 10 s
   * @param laneNotifyInterval coalescing window of lane notifications; 1 ms – 1 s, default 5 ms
   */
  public record Dispatch(
      @DefaultValue("true") boolean enabled,
      Duration claimDuration,
      Duration sendTimeout,
      Integer maxAttempts,
      Duration backoffInitial,
      Duration backoffMax,
      Integer queueCapacity,
      Integer workers,
      Integer claimBatchSize,
      Duration shutdownTimeout,
      Duration laneNotifyInterval) {}

  /**
   * The sweeper and cleanup (MaintenanceOptions).
   *
   * @param enabled whether this instance runs maintenance; default true (when dispatch is on).
   *     Another instance must run it: it recovers lost hand-offs and retries
   * @param batchSize rows per sweep pass; 1–10,000, default 100
   * @param recoveryDelay the sweeper leaves rows younger than this to direct dispatch; default 30 s
   * @param sweepInterval wait after a sweep pass; default 5 s
   * @param fullSweepInterval how often a sweep traversal starts from id 0 instead of the sweeper's
   *     floor; default 10 min
   * @param leaseDuration maintenance lease; 1 s – 1 h, default 30 s
   * @param claimDuration how long a sweep claim holds a row; default 30 s
   * @param cleanupInterval how often cleanup runs; default 1 min
   * @param cleanupBatchSize rows per cleanup delete; 1–100,000, default 5000
   * @param cleanupBudget how long one cleanup run may go on; default 5 s
   * @param cleanupPauseFactor after each cleanup batch that another follows, wait that batch's own
   *     time multiplied by this; 0–100, default 0 (batches back to back)
   * @param deadRetention dead rows older than this are deleted; a duration or infinite; default 30
   *     d
   * @param inboxRetention inbox records older than this are deleted; a duration or {@code
   *     infinite}; default 7 d
   * @param idempotencyKeyRetention idempotency keys older than this are deleted, after which an
   *     enqueue with the same key writes the message again; a duration or {@code infinite}; default
   *     7 d
   * @param shutdownTimeout how long close waits for a running pass; default 10 s
   */
  public record Maintenance(
      Boolean enabled,
      Integer batchSize,
      Duration recoveryDelay,
      Duration sweepInterval,
      Duration fullSweepInterval,
      Duration leaseDuration,
      Duration claimDuration,
      Duration cleanupInterval,
      Integer cleanupBatchSize,
      Duration cleanupBudget,
      Double cleanupPauseFactor,
      String deadRetention,
      String inboxRetention,
      String idempotencyKeyRetention,
      Duration shutdownTimeout) {}

  /**
   * The ordered lanes (LaneOptions).
   *
   * @param enabled whether this instance runs lanes; default true (when dispatch is on). Ordered
   *     messages are sent only by instances that run them
   * @param pollInterval how often an owned lane is checked without a wake-up; default 5 s
   * @param leaseDuration lane lease and instance heartbeat; 1 s – 1 h, default 30 s
   * @param keysPerPass most keys per lane one claim takes; 1–10,000, default 100
   * @param rowsPerKey most rows of one key per pass; 1–10,000, default 100
   * @param claimsPerPass most claims per pass transaction; 1–1000, default 10
   * @param threads lane passes at once on this instance; 1–64, default 2
   * @param listen whether to LISTEN for other instances' wake-ups; default true; off behind
   *     PgBouncer in transaction mode
   * @param reconnectDelay wait before reopening a lost listening connection; default 1 s
   * @param shutdownTimeout how long close waits for running passes; default 10 s
   */
  public record Lanes(
      Boolean enabled,
      Duration pollInterval,
      Duration leaseDuration,
      Integer keysPerPass,
      Integer rowsPerKey,
      Integer claimsPerPass,
      Integer threads,
      Boolean listen,
      Duration reconnectDelay,
      Duration shutdownTimeout) {}

  /**
   * Health thresholds (RelayerHealth); each pair is set together or not at all.
   *
   * @param degradedAt eligible rows from which health is degraded; default 1000
   * @param unhealthyAt eligible rows from which health is unhealthy; default 10,000
   * @param ageDegradedAt oldest eligible age from which health is degraded; default 1 min
   * @param ageUnhealthyAt oldest eligible age from which health is unhealthy; default 5 min
   * @param rowLimit the most due pending rows a health check reads, the oldest first; at least
   *     unhealthyAt; default the larger of 10,000 and unhealthyAt
   * @param failingDegradedAt failing rows (due, failed at least once, not sent since) from which
   *     health is degraded; default 100
   * @param failingUnhealthyAt failing rows from which health is unhealthy; default 1000
   * @param failingAgeDegradedAt how long the oldest failing row has been due from which health is
   *     degraded; default 1 min
   * @param failingAgeUnhealthyAt the same age from which health is unhealthy; default 15 min
   * @param degradedStatus the Spring Boot health status code the {@code relayer} indicator reports
   *     for a degraded Relayer; default {@code DEGRADED}, a status of its own that Spring Boot's
   *     aggregate ignores unless {@code management.endpoint.health.status.order} lists it (then
   *     HTTP 200 unless {@code management.endpoint.health.status.http-mapping} says otherwise).
   *     {@code UP} reports a degraded Relayer as up (its details still say why); {@code
   *     OUT_OF_SERVICE} or {@code DOWN} make the aggregate, and HTTP, say so (503)
   */
  public record Health(
      Long degradedAt,
      Long unhealthyAt,
      Duration ageDegradedAt,
      Duration ageUnhealthyAt,
      Long rowLimit,
      Long failingDegradedAt,
      Long failingUnhealthyAt,
      Duration failingAgeDegradedAt,
      Duration failingAgeUnhealthyAt,
      @DefaultValue("DEGRADED") String degradedStatus) {}

  /** The store options: schema, prefix, lane count and lane notifications. */
  public StoreOptions storeOptions() {
    return checked(this::buildStoreOptions);
  }

  private StoreOptions buildStoreOptions() {
    SchemaOptions defaults = SchemaOptions.defaults();
    SchemaOptions names;
    try {
      names =
          SchemaOptions.of(
              schema != null ? schema : defaults.schema(),
              prefix != null ? prefix : defaults.tablePrefix());
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.problems().stream().map(p -> "relayer.schema / relayer.prefix: " + p).toList());
    }
    try {
      return new StoreOptions(
          names,
          laneCount != null ? laneCount : StoreOptions.DEFAULT_LANES,
          laneNotifications == null || laneNotifications);
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.problems().stream()
              .map(p -> p.startsWith("laneCount") ? "relayer.lane-count" + p.substring(9) : p)
              .toList());
    }
  }

  /** The dispatch options ({@code relayer.dispatch.*}). */
  public DispatchOptions dispatchOptions() {
    return checked(this::buildDispatchOptions);
  }

  private DispatchOptions buildDispatchOptions() {
    DispatchOptions.Builder b = DispatchOptions.builder();
    Dispatch d = dispatch;
    set(d.claimDuration(), b::claimDuration);
    set(d.sendTimeout(), b::sendTimeout);
    set(d.maxAttempts(), b::maxAttempts);
    set(d.backoffInitial(), b::backoffInitial);
    set(d.backoffMax(), b::backoffMax);
    set(d.queueCapacity(), b::queueCapacity);
    set(d.workers(), b::workers);
    set(d.claimBatchSize(), b::claimBatchSize);
    set(d.shutdownTimeout(), b::shutdownTimeout);
    set(d.laneNotifyInterval(), b::laneNotifyInterval);
    return b.build();
  }

  /** The maintenance options ({@code relayer.maintenance.*}). */
  public MaintenanceOptions maintenanceOptions() {
    return checked(this::buildMaintenanceOptions);
  }

  private MaintenanceOptions buildMaintenanceOptions() {
    MaintenanceOptions.Builder b = MaintenanceOptions.builder();
    Maintenance m = maintenance;
    List<String> problems = new ArrayList<>();
    set(m.batchSize(), b::batchSize);
    set(m.recoveryDelay(), b::recoveryDelay);
    set(m.sweepInterval(), b::sweepInterval);
    set(m.fullSweepInterval(), b::fullSweepInterval);
    set(m.leaseDuration(), b::leaseDuration);
    set(m.claimDuration(), b::claimDuration);
    set(m.cleanupInterval(), b::cleanupInterval);
    set(m.cleanupBatchSize(), b::cleanupBatchSize);
    set(m.cleanupBudget(), b::cleanupBudget);
    set(m.cleanupPauseFactor(), b::cleanupPauseFactor);
    set(retention("deadRetention", m.deadRetention(), problems), b::deadRetention);
    set(retention("inboxRetention", m.inboxRetention(), problems), b::inboxRetention);
    set(
        retention("idempotencyKeyRetention", m.idempotencyKeyRetention(), problems),
        b::idempotencyKeyRetention);
    set(m.shutdownTimeout(), b::shutdownTimeout);
    try {
      MaintenanceOptions options = b.build();
      if (problems.isEmpty()) {
        return options;
      }
    } catch (InvalidInputException e) {
      problems.addAll(e.problems());
    }
    throw new InvalidInputException(problems);
  }

  private static @Nullable Retention retention(
      String option, @Nullable String text, List<String> problems) {
    if (text == null) {
      return null;
    }
    try {
      return Retention.parse(text);
    } catch (RuntimeException e) {
      problems.add("maintenance." + option + " '" + text + "' is not a duration or infinite");
      return null;
    }
  }

  /** The lane options ({@code relayer.lanes.*}). */
  public LaneOptions laneOptions() {
    return checked(this::buildLaneOptions);
  }

  private LaneOptions buildLaneOptions() {
    LaneOptions.Builder b = LaneOptions.builder();
    Lanes l = lanes;
    set(l.pollInterval(), b::pollInterval);
    set(l.leaseDuration(), b::leaseDuration);
    set(l.keysPerPass(), b::keysPerPass);
    set(l.rowsPerKey(), b::rowsPerKey);
    set(l.claimsPerPass(), b::claimsPerPass);
    set(l.threads(), b::threads);
    set(l.listen(), b::listen);
    set(l.reconnectDelay(), b::reconnectDelay);
    set(l.shutdownTimeout(), b::shutdownTimeout);
    return b.build();
  }

  /** Whether maintenance runs here: dispatch on and maintenance not turned off. */
  public boolean runsMaintenance() {
    return dispatch.enabled() && !Boolean.FALSE.equals(maintenance.enabled());
  }

  /** Whether lanes run here: dispatch on and lanes not turned off. */
  public boolean runsLanes() {
    return dispatch.enabled() && !Boolean.FALSE.equals(lanes.enabled());
  }

  /**
   * Every problem of every group at once, each naming its {@code relayer.*} property; empty when
   * all the properties are valid. The options of a part this instance does not run are not checked.
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    collect(problems, this::storeOptions);
    if (!dispatch.enabled()) {
      if (Boolean.TRUE.equals(maintenance.enabled())) {
        problems.add(
            "relayer.maintenance.enabled=true needs relayer.dispatch.enabled=true (maintenance"
                + " sends through the dispatcher's transports)");
      }
      if (Boolean.TRUE.equals(lanes.enabled())) {
        problems.add(
            "relayer.lanes.enabled=true needs relayer.dispatch.enabled=true (lanes send through"
                + " the dispatcher's transports)");
      }
      return problems;
    }
    collect(problems, this::dispatchOptions);
    if (runsMaintenance()) {
      collect(problems, this::maintenanceOptions);
    }
    if (runsLanes()) {
      collect(problems, this::laneOptions);
    }
    if ((health.degradedAt() == null) != (health.unhealthyAt() == null)) {
      problems.add("relayer.health.degraded-at and relayer.health.unhealthy-at are set together");
    }
    if ((health.ageDegradedAt() == null) != (health.ageUnhealthyAt() == null)) {
      problems.add(
          "relayer.health.age-degraded-at and relayer.health.age-unhealthy-at are set together");
    }
    if ((health.failingDegradedAt() == null) != (health.failingUnhealthyAt() == null)) {
      problems.add(
          "relayer.health.failing-degraded-at and relayer.health.failing-unhealthy-at are set"
              + " together");
    }
    if ((health.failingAgeDegradedAt() == null) != (health.failingAgeUnhealthyAt() == null)) {
      problems.add(
          "relayer.health.failing-age-degraded-at and relayer.health.failing-age-unhealthy-at are"
              + " set together");
    }
    if (health.degradedStatus() == null || health.degradedStatus().isBlank()) {
      problems.add("relayer.health.degraded-status must not be blank");
    }
    return problems;
  }

  private static void collect(List<String> problems, Supplier<?> options) {
    try {
      var unused = options.get(); // built only for its validation
    } catch (InvalidInputException e) {
      problems.addAll(e.problems());
    }
  }

  private static <T> void set(@Nullable T value, java.util.function.Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }

  private static final Pattern OPTION =
      Pattern.compile("^(dispatch|maintenance|lanes|health)\\.(\\w+)");
  private static final Pattern RULE = Pattern.compile("^(dispatch|maintenance|lanes|health): ");
  private static final Pattern CAMEL = Pattern.compile("\\b[a-z]+(?:[A-Z][a-z0-9]*)+\\b");

  /**
   * {@code build} with each problem renamed to its property: {@code maintenance.recoveryDelay ...}
   * becomes {@code relayer.maintenance.recovery-delay ...}, and the option names in a cross-option
   * rule ({@code dispatch: sendTimeout ... claimDuration}) become property names too.
   */
  private static <T> T checked(Supplier<T> build) {
    try {
      return build.get();
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.problems().stream().map(RelayerProperties::rename).toList());
    }
  }

  static String rename(String problem) {
    Matcher option = OPTION.matcher(problem);
    if (option.find()) {
      return "relayer."
          + option.group(1)
          + "."
          + kebab(option.group(2))
          + problem.substring(option.end());
    }
    Matcher rule = RULE.matcher(problem);
    if (rule.find()) {
      String group = rule.group(1);
      Matcher names = CAMEL.matcher(problem.substring(rule.end()));
      StringBuilder renamed = new StringBuilder("relayer.").append(group).append(": ");
      while (names.find()) {
        names.appendReplacement(
            renamed, Matcher.quoteReplacement("relayer." + group + "." + kebab(names.group())));
      }
      names.appendTail(renamed);
      return renamed.toString();
    }
    return problem;
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }
}
