package dev.relayer.dispatch;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.Lanes;
import dev.relayer.store.ParkedKey;
import dev.relayer.store.RelayerStore;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a person can do about parked ordering keys. A key is parked when its head ran out of
 * attempts; it then holds that key only, until someone acts here. Every action runs in its own
 * transaction on the given {@code DSLContext}, is logged ({@code store=}, {@code lane=}, {@code
 * key=}), and notifies the lane's owner so that a released key moves at once.
 *
 * <pre>{@code
 * RelayerOperator operator = RelayerOperator.create(store, dsl);
 * for (ParkedKey parked : operator.parkedKeys()) {
 *   System.out.println(parked.orderingKey() + " " + parked.lastError());
 * }
 * operator.retryHead("customer-42");      // try the head again, with fresh attempts
 * operator.moveHeadToDead("customer-7");  // give up on the head; the key goes on with its next row
 * }</pre>
 *
 * <p>Thread-safe. Needs no running dispatcher: the command line builds one from a plain connection.
 */
public final class RelayerOperator {

  private static final Logger log = LoggerFactory.getLogger(RelayerOperator.class);

  private final RelayerStore store;
  private final DSLContext dsl;
  private final Clock clock;

  private RelayerOperator(RelayerStore store, DSLContext dsl, Clock clock) {
    this.store = store;
    this.dsl = dsl;
    this.clock = clock;
  }

  /** Operator actions on {@code store}'s tables through {@code dsl}, with the system UTC clock. */
  public static RelayerOperator create(RelayerStore store, DSLContext dsl) {
    return create(store, dsl, Clock.systemUTC());
  }

  /** Operator actions with the clock that stamps {@code failed_at} of dead-lettered heads. */
  public static RelayerOperator create(RelayerStore store, DSLContext dsl, Clock clock) {
    return new RelayerOperator(
        Objects.requireNonNull(store, "store"),
        Objects.requireNonNull(dsl, "dsl"),
        Objects.requireNonNull(clock, "clock"));
  }

  /**
   * Every parked key of the store, by lane and key: key, lane, head id, attempts, last error and
   * since when it is parked.
   */
  public List<ParkedKey> parkedKeys() {
    return store.parkedKeys(dsl, null);
  }

  /** The parked keys of one lane. */
  public List<ParkedKey> parkedKeys(int lane) {
    return store.parkedKeys(dsl, checkLane(lane));
  }

  /** The parked head of {@code key}, if the key is parked. */
  public Optional<ParkedKey> parkedKey(String key) {
    return store.parkedKey(dsl, checkKey(key));
  }

  /**
   * Makes the parked head of {@code key} pending again with fresh attempts; its lane's owner sends
   * it next. Returns false (and changes nothing) when the key is not parked.
   */
  public boolean retryHead(String key) {
    checkKey(key);
    int lane = laneOf(key);
    Optional<ParkedKey> retried =
        dsl.transactionResult(
            tx -> {
              Optional<ParkedKey> parked = store.parkedKey(tx.dsl(), key);
              if (parked.isPresent() && store.retryParked(tx.dsl(), key)) {
                store.notifyLanes(tx.dsl(), Set.of(lane));
                return parked;
              }
              return Optional.empty();
            });
    if (retried.isEmpty()) {
      log.info("store={} lane={} key={} retry asked, but the key is not parked", name(), lane, key);
      return false;
    }
    log.info(
        "store={} lane={} key={} id={} parked head retried by an operator (had {} attempts: {})",
        name(),
        lane,
        key,
        retried.get().headId(),
        retried.get().attempts(),
        retried.get().lastError());
    return true;
  }

  /**
   * Moves the parked head of {@code key} to the dead table (reason {@code operator}, its last error
   * kept) and lets the key go on with its next row. Returns false when the key is not parked.
   */
  public boolean moveHeadToDead(String key) {
    checkKey(key);
    int lane = laneOf(key);
    Optional<ParkedKey> moved =
        dsl.transactionResult(
            tx -> {
              Optional<ParkedKey> parked = store.parkedKey(tx.dsl(), key);
              if (parked.isPresent()
                  && store.deadParked(tx.dsl(), parked.get().headId(), clock.instant())) {
                store.notifyLanes(tx.dsl(), Set.of(lane));
                return parked;
              }
              return Optional.empty();
            });
    if (moved.isEmpty()) {
      log.info(
          "store={} lane={} key={} dead-letter asked, but the key is not parked",
          name(),
          lane,
          key);
      return false;
    }
    log.warn(
        "store={} lane={} key={} id={} message_id={} parked head moved to dead rows by an operator;"
            + " the key goes on with its next row (last error: {})",
        name(),
        lane,
        key,
        moved.get().headId(),
        moved.get().messageId(),
        moved.get().lastError());
    return true;
  }

  /** Retries every parked head of {@code lane}, with fresh attempts; returns how many. */
  public int releaseLane(int lane) {
    return release(checkLane(lane));
  }

  /** Retries every parked head of the store, with fresh attempts; returns how many. */
  public int releaseAll() {
    return release(null);
  }

  private int release(@Nullable Integer lane) {
    Released released =
        dsl.transactionResult(
            tx -> {
              List<ParkedKey> parked = store.parkedKeys(tx.dsl(), lane);
              int count = store.releaseParked(tx.dsl(), lane);
              Set<Integer> lanes = new TreeSet<>();
              parked.forEach(p -> lanes.add(p.lane()));
              if (count > parked.size()) {
                // Keys parked between the listing and the release: wake the whole scope.
                lanes.addAll(lane == null ? allLanes() : Set.of(lane));
              }
              store.notifyLanes(tx.dsl(), lanes);
              return new Released(count, parked);
            });
    log.info(
        "store={} lane={} {} parked keys released by an operator",
        name(),
        lane == null ? "all" : lane.toString(),
        released.count());
    for (ParkedKey parked : released.listed()) {
      log.info(
          "store={} lane={} key={} id={} parked head released by an operator (had {} attempts)",
          name(),
          parked.lane(),
          parked.orderingKey(),
          parked.headId(),
          parked.attempts());
    }
    return released.count();
  }

  private record Released(int count, List<ParkedKey> listed) {}

  private Set<Integer> allLanes() {
    Set<Integer> lanes = new TreeSet<>();
    for (int lane = 0; lane < store.options().laneCount(); lane++) {
      lanes.add(lane);
    }
    return lanes;
  }

  private String name() {
    return store.displayName();
  }

  private int laneOf(String key) {
    return Lanes.laneOf(key, store.options().laneCount());
  }

  private int checkLane(int lane) {
    int count = store.options().laneCount();
    if (lane < 0 || lane >= count) {
      throw new InvalidInputException(
          "lane must be between 0 and " + (count - 1) + ", was " + lane);
    }
    return lane;
  }

  private static String checkKey(String key) {
    if (key == null || key.isBlank()) {
      throw new InvalidInputException("ordering key must not be blank");
    }
    return key;
  }
}
