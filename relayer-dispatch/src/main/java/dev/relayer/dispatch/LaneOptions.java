package dev.relayer.dispatch;

import dev.relayer.dispatch.internal.Durations;
import dev.relayer.dispatch.internal.OptionChecks;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Options of {@link RelayerLanes}, the ordered-lane workers. All instances sharing the tables
 * should use the same values (a lane's behaviour must not change when another instance takes it
 * over); the lane count itself is {@code StoreOptions.laneCount}.
 *
 * @param pollInterval how often an owned lane is checked without a wake-up: the safety net for lost
 *     notifications, and the only trigger in poll-only mode; > 0, default 5 s. Retries and
 *     scheduled rows do not wait for it: after an idle pass the lane is checked again when its
 *     earliest schedule or retry hold ends
 * @param leaseDuration how long the {@code lane/<n>} leases and the instance heartbeat last after
 *     each renewal; 1 s – 1 h, default 30 s. Both are renewed every third of it, and the lanes of a
 *     vanished instance are taken over after at most this long plus a third
 * @param keysPerPass most keys per lane whose next rows one claim takes (a claim over several lanes
 *     takes up to this many times their number); 1–10,000, default 100
 * @param rowsPerKey most rows of one key one claim takes as one run; 1–10,000, default 100. On a
 *     transport that declares {@code preservesBatchOrder()} a run goes out in batches; elsewhere
 *     row after row, in waves (one row of each key per batch, the next only after the previous one
 *     was accepted)
 * @param claimsPerPass most claims one pass makes in its transaction: while a claim's rows were all
 *     sent, the pass claims its lanes' next rows before it commits, so that a busy lane costs one
 *     commit per this many claims; 1–1,000, default 10. A crash before the commit sends the pass's
 *     rows again, so this bounds, with {@code keysPerPass} and {@code rowsPerKey}, how many
 *     messages a crash repeats
 * @param threads lane passes that may run at once on this instance (each holds one connection while
 *     it runs); 1–64, default 2
 * @param listen whether to keep a connection that {@code LISTEN}s on the store's lane channel, so
 *     that commits in other instances wake this one at once; default {@code true}. Turn it off
 *     behind PgBouncer in transaction mode (it cannot carry {@code LISTEN}): lanes then wake on
 *     in-process commits and poll otherwise
 * @param reconnectDelay wait before reopening a lost listening connection; > 0, default 1 s
 * @param shutdownTimeout how long {@code close()} waits for running passes; ≥ 0, default 10 s
 */
public record LaneOptions(
    Duration pollInterval,
    Duration leaseDuration,
    int keysPerPass,
    int rowsPerKey,
    int claimsPerPass,
    int threads,
    boolean listen,
    Duration reconnectDelay,
    Duration shutdownTimeout) {

  public LaneOptions {
    new OptionChecks("lanes")
        .positive("pollInterval", pollInterval)
        .between("leaseDuration", leaseDuration, Duration.ofSeconds(1), Duration.ofHours(1))
        .between("keysPerPass", keysPerPass, 1, 10_000)
        .between("rowsPerKey", rowsPerKey, 1, 10_000)
        .between("claimsPerPass", claimsPerPass, 1, 1_000)
        .between("threads", threads, 1, 64)
        .positive("reconnectDelay", reconnectDelay)
        .notNegative("shutdownTimeout", shutdownTimeout)
        .throwIfAny();
  }

  /** All defaults. */
  public static LaneOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds options from strings named like the fields; durations take ISO-8601 or short forms
   * ({@code 500ms}, {@code 30s}, {@code 5m}), {@code listen} takes {@code true} or {@code false}.
   * Unknown keys are rejected.
   */
  public static LaneOptions fromMap(Map<String, String> values) {
    Builder builder = builder();
    Map<String, Consumer<String>> setters = new LinkedHashMap<>();
    setters.put("pollInterval", v -> builder.pollInterval(Durations.parse(v)));
    setters.put("leaseDuration", v -> builder.leaseDuration(Durations.parse(v)));
    setters.put("keysPerPass", v -> builder.keysPerPass(OptionChecks.parseInt(v)));
    setters.put("rowsPerKey", v -> builder.rowsPerKey(OptionChecks.parseInt(v)));
    setters.put("claimsPerPass", v -> builder.claimsPerPass(OptionChecks.parseInt(v)));
    setters.put("threads", v -> builder.threads(OptionChecks.parseInt(v)));
    setters.put("listen", v -> builder.listen(parseBoolean(v)));
    setters.put("reconnectDelay", v -> builder.reconnectDelay(Durations.parse(v)));
    setters.put("shutdownTimeout", v -> builder.shutdownTimeout(Durations.parse(v)));
    OptionChecks.bind("lanes", values, setters);
    return builder.build();
  }

  /** {@link #fromMap} over {@code properties}. */
  public static LaneOptions fromProperties(Properties properties) {
    return fromMap(OptionChecks.toMap("lanes", properties));
  }

  private static boolean parseBoolean(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("'" + text + "' is not true or false");
    };
  }

  /** How often leases are renewed and the live instances looked up: a third of the lease. */
  public Duration renewInterval() {
    return leaseDuration.dividedBy(3);
  }

  /** One line for the start-up log. */
  public String describe() {
    return "pollInterval="
        + Durations.format(pollInterval)
        + " leaseDuration="
        + Durations.format(leaseDuration)
        + " keysPerPass="
        + keysPerPass
        + " rowsPerKey="
        + rowsPerKey
        + " claimsPerPass="
        + claimsPerPass
        + " threads="
        + threads
        + " listen="
        + listen
        + " reconnectDelay="
        + Durations.format(reconnectDelay)
        + " shutdownTimeout="
        + Durations.format(shutdownTimeout);
  }

  /** Builds {@link LaneOptions}; unset fields take their defaults. */
  public static final class Builder {
    private Duration pollInterval = Duration.ofSeconds(5);
    private Duration leaseDuration = Duration.ofSeconds(30);
    private int keysPerPass = 100;
    private int rowsPerKey = 100;
    private int claimsPerPass = 10;
    private int threads = 2;
    private boolean listen = true;
    private Duration reconnectDelay = Duration.ofSeconds(1);
    private Duration shutdownTimeout = Duration.ofSeconds(10);

    private Builder() {}

    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
      return this;
    }

    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = leaseDuration;
      return this;
    }

    public Builder keysPerPass(int keysPerPass) {
      this.keysPerPass = keysPerPass;
      return this;
    }

    public Builder rowsPerKey(int rowsPerKey) {
      this.rowsPerKey = rowsPerKey;
      return this;
    }

    public Builder claimsPerPass(int claimsPerPass) {
      this.claimsPerPass = claimsPerPass;
      return this;
    }

    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    /** {@code false} for poll-only mode (PgBouncer in transaction mode). */
    public Builder listen(boolean listen) {
      this.listen = listen;
      return this;
    }

    public Builder reconnectDelay(Duration reconnectDelay) {
      this.reconnectDelay = reconnectDelay;
      return this;
    }

    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout = shutdownTimeout;
      return this;
    }

    /** Validates every option at once; throws naming each offending option. */
    public LaneOptions build() {
      return new LaneOptions(
          pollInterval,
          leaseDuration,
          keysPerPass,
          rowsPerKey,
          claimsPerPass,
          threads,
          listen,
          reconnectDelay,
          shutdownTimeout);
    }
  }
}
