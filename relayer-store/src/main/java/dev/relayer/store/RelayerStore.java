package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaNames;
import dev.relayer.store.pass.StoreAccess;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.Record3;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Every SQL statement Relayer runs, as typed jOOQ DSL over the generated tables, rendered for the
 * configured schema and prefix. Each method runs on the {@link DSLContext} the caller passes — the
 * application's transaction — and never opens a connection of its own. The statements every message
 * or pass runs are rendered once, when the store is created, and run over JDBC on the caller's
 * connection (see the package documentation).
 *
 * <p>Fenced writes (delete, failure, dead, park) carry the claim token in their {@code WHERE}
 * clause and return how many rows they changed: fewer than asked means another claimer took the row
 * after this claim expired, which is a lost race, not an error.
 *
 * <p>This is the application's face of the store: enqueue, the inbox, parked keys and dead rows,
 * health reads, the schema checks and the lanes' notification channel ({@link #laneChannel()}). The
 * statements of Relayer's background passes (claims, completions, leases, retention) are
 * package-private here and run by {@code relayer-dispatch} through the pass types of {@code
 * dev.relayer.store.pass}, which keep each protocol's order. An enqueue never notifies: a
 * transaction that issued {@code NOTIFY} takes a database-wide lock at commit, which would
 * serialize the application's commits; the dispatcher announces the lanes after commit instead.
 *
 * <p>Before its first write to a table — an enqueue to the outbox, an inbox record, an audit row,
 * an operator action on parked keys or dead rows — the store checks that table once, as {@link
 * #verifySchema} does for all of them (one catalog statement, on the writer's connection; then a
 * set lookup per write): a missing table, a missing column or one of another type (a {@code body}
 * of type {@code text} instead of {@code bytea}) makes the write throw {@link
 * dev.relayer.api.SchemaMismatchException} naming it, and nothing is written. Only a check that
 * passed is remembered; a table altered after its check is not checked again by this store. A
 * {@link #verifySchema} that passes counts as the check of every table. The statements of Relayer's
 * background passes run after {@code verifySchema}: their components check the schema when they
 * start.
 *
 * <p>Thread-safe; create one per schema and prefix and share it.
 */
public final class RelayerStore {

  /** Longest {@code last_error} kept, in characters. */
  public static final int MAX_ERROR_LENGTH = 2000;

  /**
   * The {@code last_error} of a row whose claim was committed before it was sent with others and
   * whose outcome was never recorded: its sender stopped (most likely died) during the send. Such a
   * row is <em>suspect</em>, not guilty: any row of the process's sends in flight then may have
   * caused the crash. Claims that commit before a send with others (a claim by ids, a careful
   * pass's marked rows) write it; every completion overwrites it (a failure's error) or removes the
   * row. The passes send a suspect row alone ({@link #SENT_ALONE}), and the claim that does so
   * takes over the attempt of the interrupted one instead of counting another: a crash with others
   * costs no row an attempt.
   */
  public static final String IN_FLIGHT =
      "claimed and sent with others, but no outcome was recorded: the sender stopped during the"
          + " send";

  /**
   * The {@code last_error} of a row whose claim was committed before it was sent alone — the only
   * send in flight in its process — and whose outcome was never recorded: the row's own send
   * stopped its sender. Such a crash counts as an attempt, and a message that kills every process
   * sending it ends dead (ordered: parks its key) after {@code maxAttempts} of them.
   */
  public static final String SENT_ALONE =
      "claimed and sent alone, but no outcome was recorded: the sender stopped during the send";

  private final StoreOptions options;
  private final StoreDsl mapping;
  private final OutboxJdbc outbox;
  private final OutboxLaneQueries laneQueries;
  private final StoreJdbc jdbc;
  private final RenderedStatement commitWithoutFlushWait;
  private final RenderedStatement commitWithFlushWait;
  private final LeaseQueries leases;
  private final InboxQueries inbox;
  private final RetentionDelete deadRetention;
  private final RetentionDelete inboxRetention;
  private final int advisoryNamespace;
  private final String laneChannel;
  private final List<EnqueueListener> listeners = new CopyOnWriteArrayList<>();
  private final List<EnqueueCheck> checks = new CopyOnWriteArrayList<>();
  private final List<StoreEventListener> eventListeners = new CopyOnWriteArrayList<>();
  private final List<HeaderContributor> contributors = new CopyOnWriteArrayList<>();
  private final StorePassStatements passStatements = new StorePassStatements(this);
  private final TableChecks tableChecks;

  static {
    StoreAccess.install(store -> store.passStatements);
  }

  private RelayerStore(StoreOptions options) {
    this.options = options;
    this.mapping = new StoreDsl(options.schema());
    this.jdbc = new StoreJdbc(mapping);
    this.commitWithoutFlushWait = jdbc.render(DSL.select(TransactionSettings.NO_FLUSH_WAIT));
    this.commitWithFlushWait = jdbc.render(DSL.select(TransactionSettings.FLUSH_WAIT));
    this.outbox = new OutboxJdbc(jdbc);
    this.laneQueries = new OutboxLaneQueries(jdbc);
    this.leases = new LeaseQueries(jdbc);
    this.inbox = new InboxQueries(jdbc);
    this.deadRetention =
        new RetentionDelete(jdbc, RELAYER_OUTBOX_DEAD, RELAYER_OUTBOX_DEAD.FAILED_AT);
    this.inboxRetention = new RetentionDelete(jdbc, RELAYER_INBOX, RELAYER_INBOX.PROCESSED_AT);
    this.advisoryNamespace = Lanes.stableHash(mapping.names().qualified(SchemaNames.OUTBOX));
    this.laneChannel = Lanes.channelOf(mapping.names().qualified(SchemaNames.OUTBOX));
    this.tableChecks = new TableChecks(mapping.names());
  }

  /** A store for the given schema, prefix and lane count. */
  public static RelayerStore create(StoreOptions options) {
    return new RelayerStore(Objects.requireNonNull(options, "options"));
  }

  /** The options this store was created with. */
  public StoreOptions options() {
    return options;
  }

  /** Every identifier of this store's tables. */
  public SchemaNames names() {
    return mapping.names();
  }

  /** A name for logs and threads: {@code schema.prefix}. */
  public String displayName() {
    return options.schema().schema() + "." + options.schema().tablePrefix();
  }

  /** Registers a listener told about every enqueue, inside the writing transaction. */
  public void addEnqueueListener(EnqueueListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Unregisters a listener added with {@link #addEnqueueListener}. */
  public void removeEnqueueListener(EnqueueListener listener) {
    listeners.remove(listener);
  }

  /**
   * Registers a check run on every message {@link #enqueue} is given, before any SQL: when a check
   * reports problems, the enqueue throws {@link InvalidInputException} listing them (prefixed with
   * {@code messages[i]} when several messages were given) and writes nothing.
   */
  public void addEnqueueCheck(EnqueueCheck check) {
    checks.add(Objects.requireNonNull(check, "check"));
  }

  /** Unregisters a check added with {@link #addEnqueueCheck}. */
  public void removeEnqueueCheck(EnqueueCheck check) {
    checks.remove(check);
  }

  /** Registers a listener told about enqueues and inbox records, for metrics. */
  public void addEventListener(StoreEventListener listener) {
    eventListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Unregisters a listener added with {@link #addEventListener}. */
  public void removeEventListener(StoreEventListener listener) {
    eventListeners.remove(listener);
  }

  /**
   * Registers a contributor of headers for every message {@link #enqueue} is given (for example the
   * writer's trace context), asked before the checks and the insert, in registration order. A
   * header the message already has keeps its value. See {@link HeaderContributor}.
   */
  public void addHeaderContributor(HeaderContributor contributor) {
    contributors.add(Objects.requireNonNull(contributor, "contributor"));
  }

  /** Unregisters a contributor added with {@link #addHeaderContributor}. */
  public void removeHeaderContributor(HeaderContributor contributor) {
    contributors.remove(contributor);
  }

  // ---------------------------------------------------------------------------------------------
  // Writing
  // ---------------------------------------------------------------------------------------------

  /** Enqueues one message in the caller's transaction; returns its outbox id. */
  public long enqueue(DSLContext dsl, NewMessage message) {
    return enqueue(dsl, List.of(Objects.requireNonNull(message, "message"))).get(0);
  }

  /**
   * Enqueues messages in the caller's transaction with multi-row inserts (one per 100 messages);
   * returns their ids in input order. All or nothing: on an auto-commit connection an enqueue that
   * takes more than one statement (more than 100 messages, or ordered ones) runs in a transaction
   * of its own on that connection, so that no failure leaves some of its rows committed. Ordered
   * messages first take a transaction-scoped advisory lock on (store, key), so that within a key,
   * id order is commit order even when transactions race. The enqueue sends no notification: the
   * lanes it wrote reach the {@link EnqueueListener}s, and the dispatcher's after-commit hand-off
   * wakes their owners once the transaction has committed. Messages that an {@link EnqueueCheck}
   * refuses make the call throw {@link InvalidInputException} before any SQL. The {@link
   * HeaderContributor}s add their headers first, so the checks and the rows see them.
   */
  public List<Long> enqueue(DSLContext dsl, List<NewMessage> messages) {
    if (eventListeners.isEmpty()) {
      return write(dsl, messages);
    }
    long started = System.nanoTime();
    List<Long> ids = write(dsl, messages);
    if (!ids.isEmpty()) {
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      for (StoreEventListener listener : eventListeners) {
        listener.enqueued(ids.size(), took);
      }
    }
    return ids;
  }

  private List<Long> write(DSLContext dsl, List<NewMessage> given) {
    Objects.requireNonNull(dsl, "dsl");
    Objects.requireNonNull(given, "messages");
    if (given.isEmpty()) {
      return List.of();
    }
    for (int i = 0; i < given.size(); i++) {
      if (given.get(i) == null) {
        throw new InvalidInputException("messages[" + i + "] must not be null");
      }
    }
    List<NewMessage> messages = withContributedHeaders(given);
    checkSendable(messages);
    tableChecks.beforeWrite(dsl, SchemaNames.OUTBOX);
    Set<Integer> lanes = new TreeSet<>();
    for (NewMessage message : messages) {
      String key = message.orderingKey();
      if (key != null) {
        lanes.add(Lanes.laneOf(key, options.laneCount()));
      }
    }
    if (lanes.isEmpty() && messages.size() <= OutboxJdbc.ROWS_PER_INSERT) {
      // One statement: atomic on any connection.
      List<Long> ids = outbox.insert(dsl, messages, options.laneCount());
      notifyListeners(dsl, messages, ids, lanes);
      return ids;
    }
    List<Long> ids =
        jdbc.atomically(
            dsl,
            tx -> {
              List<Long> inserted =
                  lanes.isEmpty()
                      ? outbox.insert(tx, messages, options.laneCount())
                      : outbox.lockKeysAndInsert(
                          tx, advisoryNamespace, messages, options.laneCount());
              notifyListeners(dsl, messages, inserted, lanes);
              return inserted;
            });
    return ids;
  }

  private List<NewMessage> withContributedHeaders(List<NewMessage> messages) {
    if (contributors.isEmpty()) {
      return messages;
    }
    @Nullable List<NewMessage> result = null;
    for (int i = 0; i < messages.size(); i++) {
      NewMessage original = messages.get(i);
      NewMessage message = original;
      for (HeaderContributor contributor : contributors) {
        message = message.withHeadersAdded(contributor.headers(message));
      }
      if (message != original) {
        if (result == null) {
          result = new ArrayList<>(messages);
        }
        result.set(i, message);
      }
    }
    return result == null ? messages : result;
  }

  private void checkSendable(List<NewMessage> messages) {
    if (checks.isEmpty()) {
      return;
    }
    Set<String> problems = new LinkedHashSet<>();
    for (int i = 0; i < messages.size(); i++) {
      String prefix = messages.size() == 1 ? "" : "messages[" + i + "]: ";
      for (EnqueueCheck check : checks) {
        for (String problem : check.problems(messages.get(i))) {
          problems.add(prefix + problem);
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(List.copyOf(problems));
    }
  }

  private void notifyListeners(
      DSLContext dsl, List<NewMessage> messages, List<Long> ids, Set<Integer> lanes) {
    if (listeners.isEmpty()) {
      return;
    }
    List<Long> unordered = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      if (!messages.get(i).ordered()) {
        unordered.add(ids.get(i));
      }
    }
    List<Long> unorderedView = List.copyOf(unordered);
    Set<Integer> lanesView = Set.copyOf(lanes);
    for (EnqueueListener listener : listeners) {
      listener.enqueued(dsl.configuration(), unorderedView, lanesView);
    }
  }

  /**
   * Lets the caller's current transaction commit without waiting for its WAL flush ({@code SET
   * LOCAL synchronous_commit = off}). Relayer's own claim and completion transactions use it: if
   * the server crashes before the flush, such a transaction is lost whole, and its rows are claimed
   * and sent again — a duplicate, which at-least-once delivery allows. Never use it on the
   * transaction that writes the messages. A statement that marks rows in flight (a claim that
   * commits before its send) sets the flush wait back on for its transaction: that claim's attempt
   * must outlive a crash that follows its send.
   */
  void commitWithoutFlushWait(DSLContext tx) {
    jdbc.call(tx, commitWithoutFlushWait, new Binds());
  }

  /**
   * Makes the caller's current transaction's commit wait for the WAL flush again ({@code SET LOCAL
   * synchronous_commit = on}), whatever it set before: for a pass that took a lease from another
   * owner or created it, so that the lease names its new owner before that owner sends anything.
   */
  void commitWithFlushWait(DSLContext tx) {
    jdbc.call(tx, commitWithFlushWait, new Binds());
  }

  /**
   * Starts one of Relayer's background passes (a sweep, a lane pass) in the caller's transaction
   * and takes {@code lease} for it, as {@link #tryAcquireLease} does — in one statement when the
   * lease is this owner's or has expired and no other transaction holds its row. The pass's commit
   * does not wait for the WAL flush, as with {@link #commitWithoutFlushWait}, and the statements
   * the server has prepared run their generic plan rather than one made for each execution's values
   * ({@code plan_cache_mode = force_generic_plan}): planning a keyset page or a lane's heads for
   * given values reads the primary key's current lowest and highest entries, and where rows were
   * just deleted at either end (a pass's own deletes, direct dispatch deleting the newest rows)
   * that means walking every dead entry there, on every pass. The planner also avoids sequential
   * scans ({@code enable_seqscan = off}): a generic plan made on an empty outbox that no analyse
   * has seen reads the whole table — a pass's fenced delete by ids included — and keeps doing so as
   * the table and its dead row versions grow. Nor does it read an index through a bitmap ({@code
   * enable_bitmapscan = off}): a plain index scan marks the entries of rows dead to every
   * transaction as it meets them, a bitmap scan never does, and a lane's heads read through a
   * bitmap visited the heap for every entry its delivered rows left in the pending index until the
   * next vacuum (docs/benchmarks.md, "Lanes under paced load"). The settings end with the
   * transaction.
   */
  LeaseOutcome startLeasedPass(DSLContext tx, LeaseRequest lease) {
    return startLeasedPass(tx, List.of(Objects.requireNonNull(lease, "lease"))).get(0);
  }

  /**
   * {@link #startLeasedPass(DSLContext, LeaseRequest)} for a pass under several leases at once (a
   * pass over several lanes): the settings and every lease in one statement in the usual case. The
   * leases share one owner and one duration and have distinct names; the outcomes come in their
   * order.
   */
  List<LeaseOutcome> startLeasedPass(DSLContext tx, List<LeaseRequest> leases) {
    return this.leases.startPassAndTryAcquire(tx, sameOwner(leases));
  }

  // ---------------------------------------------------------------------------------------------
  // Claiming
  // ---------------------------------------------------------------------------------------------

  /**
   * Claims the given unordered rows that are pending, due and not under a live claim, skipping rows
   * another transaction has locked. Ordered rows are never claimed here: only their lane owner
   * sends them.
   */
  Claim.Stamped claimByIds(DSLContext dsl, ClaimByIds request) {
    Objects.requireNonNull(request, "request");
    if (request.ids().isEmpty()) {
      return new Claim.Stamped(UUID.randomUUID(), request.now(), List.of());
    }
    return outbox.claimByIds(dsl, request);
  }

  /**
   * Claims one unordered row by id to be sent alone, marked {@linkplain #SENT_ALONE sent alone}; a
   * row {@linkplain #IN_FLIGHT in flight with others} before gets no new attempt (its interrupted
   * claim's counts for this one).
   */
  Claim.Stamped claimAlone(DSLContext dsl, ClaimByIds request) {
    Objects.requireNonNull(request, "request");
    if (request.ids().size() != 1) {
      throw new IllegalArgumentException(
          "a claim alone takes exactly one id, got " + request.ids().size());
    }
    return outbox.claimAlone(dsl, request);
  }

  /** Claims the next keyset page of unordered rows; see {@link ClaimPage}. */
  Claim.Stamped claimPage(DSLContext dsl, ClaimPage request) {
    return outbox.claimPage(dsl, Objects.requireNonNull(request, "request"));
  }

  /**
   * Locks the rows {@link #claimPage} would claim ({@code FOR UPDATE SKIP LOCKED}) without writing
   * to them, for a caller that sends and completes them before its transaction commits (the
   * sweeper's pass): until then the row locks keep every other claimer off the rows, and after it
   * the sent rows are gone and the others carry the completion's writes, so a stamp would never be
   * seen. The messages' attempts include this one. Complete the claim in the same transaction with
   * {@link #deleteLocked} for sent rows and, for the others, {@link #stampLocked} followed by the
   * token-fenced writes ({@link #recordFailures}, {@link #moveToDead}).
   */
  Claim.Locked lockPage(DSLContext dsl, ClaimPage request) {
    return outbox.lockPage(dsl, Objects.requireNonNull(request, "request"));
  }

  /** Where a sweep traversal above {@code floor} starts and ends ({@link SweepBounds}). */
  SweepBounds sweepBounds(DSLContext dsl, long floor) {
    return outbox.sweepBounds(dsl, floor);
  }

  /** Claims the next rows of one or more ordered lanes in one statement; see {@link LaneClaim}. */
  Claim.Stamped claimLane(DSLContext dsl, LaneClaim request) {
    return laneQueries.claim(dsl, Objects.requireNonNull(request, "request"));
  }

  /**
   * Gives rows claimed under {@code token} back as if never claimed: clears the claim and refunds
   * its attempt. For rows a lane pass claimed but did not send. Returns how many were still held.
   */
  int unclaim(DSLContext dsl, UUID token, Collection<Long> ids) {
    int released = laneQueries.unclaim(dsl, token, ids);
    return checkAtMost("unclaim", released, ids.size());
  }

  /**
   * The lanes of {@code lanes} where a claim at {@code now} would find a row, leaving aside rows
   * that other transactions hold: some key of the lane that is not parked has an eligible head.
   */
  Set<Integer> lanesWithDueHead(DSLContext dsl, Set<Integer> lanes, Instant now) {
    return laneQueries.lanesWithDueHead(
        dsl, requireLanes(lanes), Objects.requireNonNull(now, "now"));
  }

  /**
   * Per lane of {@code lanes}: the earliest instant after {@code now} when a pending row of the
   * lane stops being held by its schedule or by a claim or retry hold. A lane where nothing waits
   * for time is absent.
   */
  Map<Integer, Instant> nextDueInLanes(DSLContext dsl, Set<Integer> lanes, Instant now) {
    return laneQueries.nextDue(dsl, requireLanes(lanes), Objects.requireNonNull(now, "now"));
  }

  /**
   * The end of a lane pass, in one statement: renews {@code leases} as {@link #renewLease} does
   * (one owner and duration) and returns what {@link #nextDueInLanes} would for {@code lanes},
   * which may be empty.
   */
  Map<Integer, Instant> renewLeasesAndFindNextDue(
      DSLContext dsl, List<LeaseRequest> leases, Set<Integer> lanes, Instant now) {
    return laneQueries.renewLeasesAndFindNextDue(
        dsl,
        sameOwner(leases),
        Objects.requireNonNull(lanes, "lanes"),
        Objects.requireNonNull(now, "now"));
  }

  /** {@code leases}, checked to be some, of one owner and duration, with distinct names. */
  private static List<LeaseRequest> sameOwner(List<LeaseRequest> leases) {
    List<LeaseRequest> checked = List.copyOf(Objects.requireNonNull(leases, "leases"));
    if (checked.isEmpty()) {
      throw new InvalidInputException("leases must name at least one lease");
    }
    LeaseRequest first = checked.get(0);
    Set<String> names = new HashSet<>();
    for (LeaseRequest lease : checked) {
      if (!lease.owner().equals(first.owner()) || !lease.duration().equals(first.duration())) {
        throw new InvalidInputException(
            "leases of one pass must share owner and duration: "
                + lease
                + " differs from "
                + first);
      }
      if (!names.add(lease.name())) {
        throw new InvalidInputException("lease " + lease.name() + " is named twice");
      }
    }
    return checked;
  }

  private static Set<Integer> requireLanes(Set<Integer> lanes) {
    if (Objects.requireNonNull(lanes, "lanes").isEmpty()) {
      throw new InvalidInputException("lanes must name at least one lane");
    }
    return lanes;
  }

  /**
   * Ordered rows in lanes at or above this store's lane count: written by an instance configured
   * with more lanes. No lane owner of this configuration sends them.
   */
  long orderedRowsOutsideLanes(DSLContext dsl) {
    return laneQueries.outsideLanes(dsl, options.laneCount());
  }

  /**
   * The PostgreSQL notification channel of this store's lanes: {@code relayer_lanes_} followed by
   * the first 16 hexadecimal digits of the SHA-256 of the quoted, qualified outbox table name (for
   * example of {@code "public"."relayer_outbox"}). A notification's payload is a list of lane
   * numbers ({@link Lanes#payloads}).
   */
  public String laneChannel() {
    return laneChannel;
  }

  /**
   * Notifies the owners of {@code lanes} on {@link #laneChannel()} in one statement (one
   * notification per payload of {@link Lanes#payloads}, each within {@link
   * Lanes#MAX_PAYLOAD_BYTES}), whatever {@link StoreOptions#laneNotifications()} says. It runs in
   * the caller's transaction and is delivered when that commits; on an auto-commit connection it is
   * a transaction of its own. A committing transaction that notified takes a database-wide lock
   * (every such commit waits for the others), so call it from a short transaction of your own — as
   * the dispatcher's notifier and the operator actions do — never from the application's.
   */
  void notifyLanes(DSLContext dsl, Set<Integer> lanes) {
    laneQueries.notifyLanes(dsl, laneChannel, Set.copyOf(lanes));
  }

  // ---------------------------------------------------------------------------------------------
  // Completing
  // ---------------------------------------------------------------------------------------------

  /**
   * Deletes sent rows still under {@code token}; returns how many. Fewer than {@code ids} means
   * lost races; more is impossible and throws {@link IllegalStateException}.
   */
  int deleteFenced(DSLContext dsl, UUID token, Collection<Long> ids) {
    int deleted = outbox.deleteFenced(dsl, token, ids);
    return checkAtMost("deleteFenced", deleted, ids.size());
  }

  /**
   * {@link #deleteFenced}, and the caller's transaction then commits without waiting for its WAL
   * flush, as after {@link #commitWithoutFlushWait}, when {@code ids} is not empty: the completion
   * of a claim committed before its send, in one round trip fewer.
   */
  int deleteFencedWithoutFlushWait(DSLContext dsl, UUID token, Collection<Long> ids) {
    int deleted = outbox.deleteFencedWithoutFlushWait(dsl, token, ids);
    return checkAtMost("deleteFencedWithoutFlushWait", deleted, ids.size());
  }

  /**
   * Marks rows still under {@code token} {@linkplain #IN_FLIGHT in flight} with others, for a claim
   * that commits before its send; returns how many.
   */
  int markInFlight(DSLContext dsl, UUID token, Collection<Long> ids) {
    int marked = outbox.markInFlight(dsl, token, ids, IN_FLIGHT, null);
    return checkAtMost("markInFlight", marked, ids.size());
  }

  /**
   * Marks the row {@code id}, still under {@code token}, {@linkplain #SENT_ALONE sent alone}, for a
   * claim of that row alone that commits before its send, and gives back the attempt of this claim
   * when the row was {@linkplain #IN_FLIGHT in flight with others} before it: the interrupted
   * claim's attempt counts for this one. Returns whether the row was still under the token. The
   * caller's {@link ClaimedMessage} does not change; {@link #attemptsWhenSentAlone} says what it
   * now reads.
   */
  boolean markSentAlone(DSLContext dsl, UUID token, long id) {
    int marked = outbox.markInFlight(dsl, token, List.of(id), SENT_ALONE, IN_FLIGHT);
    return checkAtMost("markSentAlone", marked, 1) == 1;
  }

  /**
   * The attempts of {@code claimed}, a row just claimed, once {@link #markSentAlone} marked it: one
   * fewer when it was in flight with others.
   */
  public static int attemptsWhenSentAlone(ClaimedMessage claimed) {
    return IN_FLIGHT.equals(claimed.lastError()) ? claimed.attempts() - 1 : claimed.attempts();
  }

  /**
   * Whether {@code message} was in flight when its sender stopped, with others ({@link #IN_FLIGHT})
   * or alone ({@link #SENT_ALONE}): either way it is sent alone next.
   */
  public static boolean wasInFlight(ClaimedMessage message) {
    return IN_FLIGHT.equals(message.lastError()) || SENT_ALONE.equals(message.lastError());
  }

  /**
   * Deletes sent rows of a {@linkplain Claim.Locked locked} claim, in the transaction that locked
   * them; returns how many. Throws {@link IllegalArgumentException} for ids it does not hold. (A
   * stamped claim's rows are deleted with {@link #deleteFenced}.)
   */
  int deleteLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids) {
    requireLockedRows("deleteLocked", claim, ids);
    int deleted = outbox.deleteLocked(dsl, ids);
    return checkAtMost("deleteLocked", deleted, ids.size());
  }

  /**
   * Stamps rows of a {@linkplain Claim.Locked locked} claim with its token, expiry and their
   * attempt, in the transaction that locked them, so that the token-fenced completion writes apply
   * to them; returns how many. Throws {@link IllegalArgumentException} for ids it does not hold.
   */
  int stampLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids) {
    requireLockedRows("stampLocked", claim, ids);
    int stamped = outbox.stampLocked(dsl, claim, ids);
    return checkAtMost("stampLocked", stamped, ids.size());
  }

  private static void requireLockedRows(
      String operation, Claim.Locked claim, Collection<Long> ids) {
    Set<Long> held = new HashSet<>();
    claim.messages().forEach(m -> held.add(m.id()));
    for (Long id : ids) {
      if (!held.contains(id)) {
        throw new IllegalArgumentException(operation + ": id " + id + " is not in the claim");
      }
    }
  }

  /**
   * Records failed sends still under {@code token}: stores the error and holds each row until its
   * retry instant. Returns how many rows were still held by the token.
   */
  int recordFailures(DSLContext dsl, UUID token, List<FailedSend> failures) {
    int updated = outbox.recordFailures(dsl, token, failures);
    return checkAtMost("recordFailures", updated, failures.size());
  }

  /** Moves rows still under {@code token} to the dead table in one statement; returns how many. */
  int moveToDead(DSLContext dsl, UUID token, DeadLetter letter) {
    int moved = OutboxDeadQueries.moveClaimed(mapping.map(dsl), token, letter);
    return checkAtMost("moveToDead", moved, letter.ids().size());
  }

  // ---------------------------------------------------------------------------------------------
  // Parked keys (ordered lanes)
  // ---------------------------------------------------------------------------------------------

  /** Parks a key's head under {@code token}: the key is held until an operator acts. */
  boolean park(DSLContext dsl, UUID token, long id, String error, Instant parkedAt) {
    return laneQueries.park(dsl, token, id, error, parkedAt);
  }

  /** Parked keys, in lane and key order; {@code lane} null for all lanes. */
  public List<ParkedKey> parkedKeys(DSLContext dsl, @Nullable Integer lane) {
    return OutboxQueries.parkedKeys(mapping.map(dsl), lane, null);
  }

  /** The parked head of {@code key}, if the key is parked. */
  public Optional<ParkedKey> parkedKey(DSLContext dsl, String key) {
    StoreChecks.requireText("orderingKey", key);
    int lane = Lanes.laneOf(key, options.laneCount());
    return OutboxQueries.parkedKeys(mapping.map(dsl), lane, key).stream().findFirst();
  }

  /** Makes the parked head of {@code key} pending again with fresh attempts; true if it was. */
  public boolean retryParked(DSLContext dsl, String key) {
    StoreChecks.requireText("orderingKey", key);
    tableChecks.beforeWrite(dsl, SchemaNames.OUTBOX);
    return OutboxQueries.unpark(mapping.map(dsl), null, key) == 1;
  }

  /** Makes every parked head pending again, of one lane or ({@code lane} null) of the store. */
  public int releaseParked(DSLContext dsl, @Nullable Integer lane) {
    tableChecks.beforeWrite(dsl, SchemaNames.OUTBOX);
    return OutboxQueries.unpark(mapping.map(dsl), lane, null);
  }

  /** Moves the parked head {@code headId} to the dead table; its key then continues. */
  public boolean deadParked(DSLContext dsl, long headId, Instant failedAt) {
    tableChecks.beforeWrite(dsl, SchemaNames.OUTBOX, SchemaNames.OUTBOX_DEAD);
    return OutboxDeadQueries.moveParked(mapping.map(dsl), headId, "operator", failedAt) == 1;
  }

  // ---------------------------------------------------------------------------------------------
  // Dead rows (operator)
  // ---------------------------------------------------------------------------------------------

  /** The dead rows of {@code page}, in id order, without headers and bodies. */
  public List<DeadRowSummary> deadRows(DSLContext dsl, DeadPage page) {
    return DeadRowQueries.list(mapping.map(dsl), Objects.requireNonNull(page, "page"));
  }

  /**
   * The dead rows {@code filter} matches, grouped by error fingerprint: most rows first, then the
   * latest failure; at most {@code limit} groups (1 to {@link DeadPage#MAX_LIMIT}).
   */
  public List<DeadGroup> deadGroups(DSLContext dsl, DeadFilter filter, int limit) {
    Objects.requireNonNull(filter, "filter");
    if (limit < 1 || limit > DeadPage.MAX_LIMIT) {
      throw new InvalidInputException(
          "limit must be between 1 and " + DeadPage.MAX_LIMIT + ", was " + limit);
    }
    return DeadRowQueries.groups(mapping.map(dsl), filter, limit);
  }

  /** The dead row {@code id}, every column, if there is one. */
  public Optional<DeadRow> deadRow(DSLContext dsl, long id) {
    return DeadRowQueries.find(mapping.map(dsl), id);
  }

  /** How many dead rows {@code filter} matches. */
  public long deadCount(DSLContext dsl, DeadFilter filter) {
    return DeadRowQueries.countMatching(mapping.map(dsl), Objects.requireNonNull(filter, "filter"));
  }

  /** The highest id in the dead table: the fixed end of a replay or purge ({@link DeadPage}). */
  public OptionalLong highestDeadId(DSLContext dsl) {
    return DeadRowQueries.highestId(mapping.map(dsl));
  }

  /**
   * Moves the dead rows of {@code page} back to the outbox, atomically (on an auto-commit
   * connection in a transaction of its own): pending, with no attempts and no error, under new
   * outbox ids drawn in dead-id order, with the same message id, transport, destination, type,
   * headers, body, {@code created_at}, ordering key and tenant. The lane is the key's lane (the
   * stored one, unless it was written under another lane count). {@code deliver_at} becomes {@code
   * replayedAt}, so that ages count from the replay and the sweeper takes an unordered row at its
   * next pass, as it takes a scheduled one. Before moving, it takes the advisory locks of the
   * page's ordering keys that an enqueue takes, so that a replayed row's id follows every id of its
   * key committed before it and precedes every one committed after it; a replayed ordered row
   * therefore goes behind the rows of its key still in the outbox, and a parked key stays parked
   * with the replayed rows behind its head ({@link DeadReplayed#parkedKeys()}). Rows another
   * transaction holds are skipped, so concurrent replays move each row once. Run pages of one
   * replay in id order ({@link DeadReplayed#next()}) so that rows of one key keep their order.
   */
  public DeadReplayed replayDead(DSLContext dsl, DeadPage page, Instant replayedAt) {
    Objects.requireNonNull(page, "page");
    StoreChecks.requireInstant("replayedAt", replayedAt);
    tableChecks.beforeWrite(dsl, SchemaNames.OUTBOX, SchemaNames.OUTBOX_DEAD);
    return jdbc.atomically(
        dsl,
        tx -> {
          DSLContext mapped = mapping.map(tx);
          var candidates = DeadRowQueries.candidates(mapped, page);
          if (candidates.isEmpty()) {
            return new DeadReplayed(List.of(), Set.of(), OptionalLong.empty());
          }
          List<Long> ids = new ArrayList<>(candidates.size());
          Set<String> keys = new TreeSet<>();
          Map<String, Integer> relaned = new HashMap<>();
          for (var candidate : candidates) {
            ids.add(candidate.value1());
            String key = candidate.value2();
            if (key != null) {
              keys.add(key);
              int lane = Lanes.laneOf(key, options.laneCount());
              if (!Objects.equals(candidate.value3(), lane)) {
                relaned.put(key, lane);
              }
            }
          }
          outbox.lockKeyNames(tx, advisoryNamespace, keys);
          List<ReplayedRow> rows =
              OutboxDeadQueries.replay(mapped, ids, page.filter(), replayedAt, relaned);
          Set<String> replayedKeys = new TreeSet<>();
          rows.forEach(
              r -> {
                if (r.orderingKey() != null) {
                  replayedKeys.add(r.orderingKey());
                }
              });
          Set<String> parked = OutboxQueries.parkedAmong(mapped, replayedKeys);
          return new DeadReplayed(
              rows, parked, DeadRowQueries.next(page, ids.size(), ids.get(ids.size() - 1)));
        });
  }

  /**
   * Deletes the dead rows of {@code page}, skipping rows another transaction holds (so concurrent
   * purges delete each row once); never a row outside the page's filter. Run pages one after
   * another with {@link DeadDeleted#next()}.
   */
  public DeadDeleted deleteDead(DSLContext dsl, DeadPage page) {
    Objects.requireNonNull(page, "page");
    tableChecks.beforeWrite(dsl, SchemaNames.OUTBOX_DEAD);
    DSLContext mapped = mapping.map(dsl);
    var candidates = DeadRowQueries.candidates(mapped, page);
    if (candidates.isEmpty()) {
      return new DeadDeleted(0, OptionalLong.empty());
    }
    List<Long> ids = candidates.stream().map(Record3::value1).toList();
    int deleted = OutboxDeadQueries.delete(mapped, ids, page.filter());
    return new DeadDeleted(
        checkAtMost("deleteDead", deleted, ids.size()),
        DeadRowQueries.next(page, ids.size(), ids.get(ids.size() - 1)));
  }

  // ---------------------------------------------------------------------------------------------
  // Health
  // ---------------------------------------------------------------------------------------------

  /**
   * The eligible backlog at {@code now}: {@code status = 'pending' and (deliver_at is null or
   * deliver_at <= now) and (claim_expires_at is null or claim_expires_at <= now)}.
   */
  public Backlog backlog(DSLContext dsl, Instant now) {
    return OutboxQueries.backlog(mapping.map(dsl), Objects.requireNonNull(now, "now"), null);
  }

  /** The eligible backlog of one transport at {@code now}. */
  public Backlog backlog(DSLContext dsl, Instant now, String transport) {
    StoreChecks.requireText("transport", transport);
    return OutboxQueries.backlog(mapping.map(dsl), Objects.requireNonNull(now, "now"), transport);
  }

  /**
   * The outbox and dead table at {@code query.now()}, in one statement: the eligible backlog, the
   * oldest due pending row, rows waiting out a retry, rows never handed off, parked keys, dead rows
   * and recent dead rows; see {@link OutboxHealth}. It visits at most {@code query.rowLimit()} due
   * pending rows (the oldest) and the parked heads, and counts the dead table; run it at probe
   * rates (seconds), not per message.
   */
  public OutboxHealth health(DSLContext dsl, HealthQuery query) {
    return OutboxQueries.health(mapping.map(dsl), Objects.requireNonNull(query, "query"));
  }

  /**
   * Dead tuples of Relayer's tables (outbox, dead table, inbox, leases), from {@code
   * pg_stat_user_tables}, in that order; a table that does not exist is left out. One statement;
   * see {@link TableDeadTuples} for how fresh the counts are.
   */
  public List<TableDeadTuples> deadTuples(DSLContext dsl) {
    return TableStatsQueries.deadTuples(mapping.map(dsl), mapping.names());
  }

  /**
   * What holds this database's xmin horizon back: sessions with an open snapshot or transaction id
   * (those the role may see), replication slots with an {@code xmin} and prepared transactions,
   * oldest first; see {@link XminHorizon}. Three statements on PostgreSQL's views, none on
   * Relayer's tables.
   */
  public XminHorizon xminHorizon(DSLContext dsl) {
    return HorizonQueries.horizon(mapping.map(dsl));
  }

  /**
   * The outbox grouped by {@code query.by()} at {@code query.now()}, in one statement: per group
   * the rows by state (eligible, in flight, retrying, scheduled, parked; see {@link BacklogCounts})
   * and the oldest ages; the {@code query.limit()} groups with the most rows one by one, the rest
   * summed, and the total. It reads every outbox row once; its output is bounded by the limit,
   * whatever the number of groups.
   */
  public BacklogBreakdown backlogBreakdown(DSLContext dsl, BacklogQuery query) {
    return BacklogQueries.breakdown(mapping.map(dsl), Objects.requireNonNull(query, "query"));
  }

  /**
   * The parked keys whose head has been parked longest, oldest first, at most {@code limit} (1 to
   * 10,000).
   */
  public List<ParkedKey> longestParkedKeys(DSLContext dsl, int limit) {
    if (limit < 1 || limit > 10_000) {
      throw new InvalidInputException("limit must be between 1 and 10000, was " + limit);
    }
    return BacklogQueries.longestParked(mapping.map(dsl), limit);
  }

  /** How many keys are parked. */
  public long parkedKeyCount(DSLContext dsl) {
    return OutboxQueries.parkedKeyCount(mapping.map(dsl));
  }

  /** How many rows the dead table holds. */
  public long deadCount(DSLContext dsl) {
    return OutboxDeadQueries.count(mapping.map(dsl));
  }

  // ---------------------------------------------------------------------------------------------
  // Leases (database clock)
  // ---------------------------------------------------------------------------------------------

  /**
   * Takes {@code request.name()} for one pass in the caller's transaction: proceeds only if this
   * owner holds the lease or it has expired, and keeps the lease row locked until the transaction
   * ends, so that two owners never run passes at once. Someone else holding it is a value.
   */
  LeaseOutcome tryAcquireLease(DSLContext dsl, LeaseRequest request) {
    return leases.tryAcquire(dsl, request);
  }

  /** Restarts the lease's expiry from the database's {@code clock_timestamp()}. */
  boolean renewLease(DSLContext dsl, LeaseRequest request) {
    return leases.renew(dsl, request);
  }

  /** Gives a lease up (graceful shutdown); false if {@code owner} did not hold it. */
  boolean releaseLease(DSLContext dsl, String name, String owner) {
    StoreChecks.requireText("lease name", name);
    StoreChecks.requireText("lease owner", owner);
    return leases.release(dsl, name, owner);
  }

  /** The lease row, if any. */
  public Optional<LeaseState> lease(DSLContext dsl, String name) {
    StoreChecks.requireText("lease name", name);
    return leases.find(dsl, name);
  }

  /**
   * Every lease row, expired or not, by name: the sweeper, cleanup, each lane ({@code lane/<n>})
   * and each live lane instance's heartbeat ({@code instance/<owner>}). Graceful shutdown deletes
   * an owner's rows; an expired row is an owner that stopped without it.
   */
  public List<LeaseState> leases(DSLContext dsl) {
    return leases.all(dsl, "");
  }

  /** Unexpired leases whose name starts with {@code prefix}. */
  public List<LeaseState> liveLeases(DSLContext dsl, String prefix) {
    StoreChecks.requireWritable("lease name prefix", Objects.requireNonNull(prefix, "prefix"));
    return leases.live(dsl, prefix);
  }

  // ---------------------------------------------------------------------------------------------
  // Retention and inbox
  // ---------------------------------------------------------------------------------------------

  /**
   * One retention batch of the dead table, on the caller's connection: deletes at most {@code
   * batch.limit()} dead rows whose {@code failed_at} lies before {@code batch.olderThan()}, oldest
   * first, from {@code batch.from()} on, as two statements (on an auto-commit connection, two
   * transactions); the commit of the delete does not wait for the WAL flush (a lost batch is
   * deleted again by the next). A drain runs batches one after another, passing each result to
   * {@link PurgeBatch#after} until one reports {@linkplain Purged#drained() drained}.
   */
  Purged purgeDead(DSLContext dsl, PurgeBatch batch) {
    return deadRetention.run(dsl, Objects.requireNonNull(batch, "batch"));
  }

  /** {@link #purgeDead} for inbox records, by {@code processed_at}. */
  Purged purgeInbox(DSLContext dsl, PurgeBatch batch) {
    return inboxRetention.run(dsl, Objects.requireNonNull(batch, "batch"));
  }

  /**
   * Records that {@code consumer} processed {@code messageId}, in the consumer's transaction, with
   * a single insert: {@link InboxOutcome#FIRST} means process it, {@link InboxOutcome#DUPLICATE}
   * means drop it. A rollback of the consumer's transaction removes the record with its work.
   */
  public InboxOutcome tryRecordInbox(DSLContext dsl, String consumer, UUID messageId) {
    StoreChecks.requireText("consumer", consumer);
    if (messageId == null) {
      throw new InvalidInputException("messageId must not be null");
    }
    if (NewMessage.NIL.equals(messageId)) {
      throw new InvalidInputException("messageId must not be the nil UUID");
    }
    tableChecks.beforeWrite(dsl, SchemaNames.INBOX);
    InboxOutcome outcome = inbox.tryRecord(dsl, consumer, messageId);
    for (StoreEventListener listener : eventListeners) {
      listener.inboxRecorded(consumer, outcome);
    }
    return outcome;
  }

  // ---------------------------------------------------------------------------------------------
  // Audit trail
  // ---------------------------------------------------------------------------------------------

  /**
   * Writes one audit row in the caller's transaction; returns its id. Write it in the transaction
   * of the change it records, so that the row exists exactly when the change committed.
   */
  public long recordAudit(DSLContext dsl, NewAuditEntry entry) {
    Objects.requireNonNull(entry, "entry");
    tableChecks.beforeWrite(dsl, SchemaNames.OPERATIONS);
    return AuditQueries.insert(mapping.map(dsl), Objects.requireNonNull(entry, "entry"));
  }

  /**
   * Adds {@code rows} to the count of the audit row {@code id}, in the caller's transaction: for an
   * action that runs in several transactions, each adds what it changed. Returns false when there
   * is no such row.
   */
  public boolean addAuditRows(DSLContext dsl, long id, long rows) {
    if (rows < 0) {
      throw new InvalidInputException("rows must be at least 0, was " + rows);
    }
    tableChecks.beforeWrite(dsl, SchemaNames.OPERATIONS);
    return checkAtMost("addAuditRows", AuditQueries.addRows(mapping.map(dsl), id, rows), 1) == 1;
  }

  /**
   * The newest {@code limit} (1 to {@link DeadPage#MAX_LIMIT}) audit rows, newest first; with
   * {@code since}, only rows whose action began at or after it.
   */
  public List<AuditEntry> auditEntries(DSLContext dsl, @Nullable Instant since, int limit) {
    if (limit < 1 || limit > DeadPage.MAX_LIMIT) {
      throw new InvalidInputException(
          "limit must be between 1 and " + DeadPage.MAX_LIMIT + ", was " + limit);
    }
    if (since != null) {
      StoreChecks.requireInstant("since", since);
    }
    return AuditQueries.newest(mapping.map(dsl), since, limit);
  }

  // ---------------------------------------------------------------------------------------------
  // Schema
  // ---------------------------------------------------------------------------------------------

  /**
   * Checks that the five tables of schema version {@value
   * dev.relayer.schema.PostgreSqlOutboxSchema#CURRENT_VERSION} exist with every column Relayer
   * uses, of the types and nullability it relies on, and that its lane key index exists and is
   * valid; throws {@link dev.relayer.api.SchemaMismatchException} naming the first mismatch. An
   * install at version 1 (without the operations table) or at version 2 (without the lane key
   * index, which the ordered-lane claim needs to stay fast on a large outbox) fails, naming the
   * missing object and how to upgrade. When it passes, this store's writes skip their own first
   * check of each table (see the class documentation).
   */
  public void verifySchema(DSLContext dsl) {
    tableChecks.verifyAll(dsl);
  }

  /**
   * Every difference between the installed tables and those the current schema script creates:
   * tables, columns (type, nullability, default, identity), constraints and indexes, each a {@link
   * SchemaFinding}, and the schema version the install amounts to. Objects Relayer does not create
   * (an index of your own) are not findings. It creates the current schema's tables as temporary
   * tables in a transaction (a savepoint, in the caller's transaction) that it rolls back, and
   * compares the two catalogs, so it needs the {@code TEMPORARY} privilege on the database (which
   * PostgreSQL grants to every role by default) and leaves nothing behind.
   */
  public SchemaReport findDrift(DSLContext dsl) {
    return SchemaDrift.find(dsl, names());
  }

  private static int checkAtMost(String operation, int changed, int expected) {
    if (changed > expected) {
      throw new IllegalStateException(
          operation + " changed " + changed + " rows, expected at most " + expected);
    }
    return changed;
  }
}
