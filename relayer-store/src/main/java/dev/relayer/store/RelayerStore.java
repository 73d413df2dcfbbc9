package dev.relayer.store;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaNames;
import dev.relayer.store.internal.ErrorText;
import dev.relayer.store.internal.StoreChecks;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.internal.StoreJdbc;
import dev.relayer.store.internal.TableChecks;
import dev.relayer.store.schema.SchemaDrift;
import dev.relayer.store.schema.SchemaFinding;
import dev.relayer.store.schema.SchemaReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The application's face of Relayer's tables: enqueue, the inbox, the schema checks and the lanes'
 * notification channel ({@link #laneChannel()}). Each method runs on the {@link DSLContext} the
 * caller passes — the application's transaction — and never opens a connection of its own. The
 * statements every message runs are rendered once, when the store is created, and run over JDBC on
 * the caller's connection (see the package documentation).
 *
 * <p>The rest of the store has its own types: Relayer's background passes (claims, completions,
 * leases, retention) run through {@code dev.relayer.store.pass}, which keeps each protocol's order;
 * operator actions on parked keys and dead rows through {@link
 * dev.relayer.store.ops.StoreOperations}, each writing its audit row in the transaction of its
 * change; health reads through {@link dev.relayer.store.health.HealthReads}. An enqueue never
 * notifies: a transaction that issued {@code NOTIFY} takes a database-wide lock at commit, which
 * would serialize the application's commits; the dispatcher announces the lanes after commit
 * instead.
 *
 * <p>Before its first write to a table — an enqueue to the outbox, a key to the idempotency keys,
 * an inbox record — the store checks that table once, as {@link #verifySchema} does for all of them
 * (one catalog statement, on the writer's connection; then a set lookup per write): a missing
 * table, a missing column or one of another type (a {@code body} of type {@code text} instead of
 * {@code bytea}) makes the write throw {@link dev.relayer.api.SchemaMismatchException} naming it,
 * and nothing is written. Only a check that passed is remembered; a table altered after its check
 * is not checked again by this store. A {@link #verifySchema} that passes counts as the check of
 * every table. The statements of Relayer's background passes run after {@code verifySchema}: their
 * components check the schema when they start.
 *
 * <p>Thread-safe; create one per schema and prefix and share it.
 */
public final class RelayerStore {
  /** Longest {@code last_error} kept, in characters. */
  public static final int MAX_ERROR_LENGTH = ErrorText.MAX_LENGTH;

  private final StoreOptions options;

  private final StoreDsl mapping;

  private final OutboxInserts outbox;

  private final StoreJdbc jdbc;

  private final InboxQueries inbox;

  private final IdempotencyKeys keys;

  private final int advisoryNamespace;

  private final String laneChannel;

  private final List<EnqueueListener> listeners = new CopyOnWriteArrayList<>();

  private final List<EnqueueCheck> checks = new CopyOnWriteArrayList<>();

  private final List<StoreEventListener> eventListeners = new CopyOnWriteArrayList<>();

  private final List<HeaderContributor> contributors = new CopyOnWriteArrayList<>();

  private final TableChecks tableChecks;

  private RelayerStore(StoreOptions options) {
    this.options = options;
    this.mapping = new StoreDsl(options.schema());
    this.jdbc = new StoreJdbc(mapping);
    this.outbox = new OutboxInserts(jdbc);
    this.inbox = new InboxQueries(jdbc);
    this.keys = new IdempotencyKeys(jdbc);
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

  /**
   * Attaches a hook to every write of this store until the returned attachment is closed:
   *
   * <ul>
   *   <li>a {@link HeaderContributor} adds headers to every message {@link #enqueue} is given (for
   *       example the writer's trace context), before the checks and the insert, in attachment
   *       order; a header the message already has keeps its value;
   *   <li>an {@link EnqueueCheck} runs on every message before any SQL: when a check reports
   *       problems, the enqueue throws {@link InvalidInputException} listing them (prefixed with
   *       {@code messages[i]} when several messages were given) and writes nothing;
   *   <li>an {@link EnqueueListener} is told about every enqueue, inside the writing transaction;
   *   <li>a {@link StoreEventListener} is told about enqueues and inbox records, for metrics.
   * </ul>
   *
   * An object that implements several of these is attached as each of them, and detached from all
   * of them by one {@link StoreAttachment#close()}.
   */
  public StoreAttachment attach(StoreHook hook) {
    Objects.requireNonNull(hook, "hook");
    List<List<? extends StoreHook>> attachedTo = new ArrayList<>(4);
    attachAs(hook, HeaderContributor.class, contributors, attachedTo);
    attachAs(hook, EnqueueCheck.class, checks, attachedTo);
    attachAs(hook, EnqueueListener.class, listeners, attachedTo);
    attachAs(hook, StoreEventListener.class, eventListeners, attachedTo);
    return () -> attachedTo.forEach(hooks -> hooks.remove(hook));
  }

  private static <T extends StoreHook> void attachAs(
      StoreHook hook, Class<T> kind, List<T> hooks, List<List<? extends StoreHook>> attachedTo) {
    if (kind.isInstance(hook)) {
      hooks.add(kind.cast(hook));
      attachedTo.add(hooks);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Writing
  // ---------------------------------------------------------------------------------------------

  /**
   * Enqueues one message in the caller's transaction; returns its outbox id. A message with an
   * {@linkplain NewMessage#idempotencyKey() idempotency key} goes through {@link #enqueueOnce}.
   */
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
   *
   * <p>A message with an {@linkplain NewMessage#idempotencyKey() idempotency key} is refused
   * ({@link InvalidInputException}, nothing written): such a message may be a duplicate, which has
   * no id to return; {@link #enqueueOnce} enqueues it and says whether it was one.
   */
  public List<Long> enqueue(DSLContext dsl, List<NewMessage> messages) {
    if (eventListeners.isEmpty()) {
      return write(dsl, messages);
    }
    long started = System.nanoTime();
    List<Long> ids = write(dsl, messages);
    reportEnqueued(ids.size(), started);
    return ids;
  }

  /**
   * Enqueues one message unless a message with its idempotency key was enqueued before; see {@link
   * #enqueueOnce(DSLContext, List)}.
   */
  public EnqueueOutcome enqueueOnce(DSLContext dsl, NewMessage message) {
    return enqueueOnce(dsl, List.of(Objects.requireNonNull(message, "message"))).get(0);
  }

  /**
   * Enqueues messages in the caller's transaction, as {@link #enqueue(DSLContext, List)} does,
   * except those whose {@linkplain NewMessage#idempotencyKey() idempotency key} a message enqueued
   * before already carried: those are not written and come back as {@link EnqueueOutcome.Duplicate}
   * (with the first message's id), the others as {@link EnqueueOutcome.Enqueued} (with their outbox
   * id), one outcome per message in input order. A message without a key is always written.
   *
   * <p>A key is unique per install (schema and prefix), across transports, destinations and
   * tenants, for the key retention ({@code idempotencyKeyRetention} of the maintenance, 7 days by
   * default) from its first enqueue (the start of that transaction), whatever happens to that
   * message's row — sent and deleted, moved to the dead table, purged or replayed. "Before" means:
   * by a transaction that committed, or earlier in the same list (the first message of a key is
   * written, later ones are its duplicates). When another transaction enqueued the key and has not
   * ended yet, this call waits for it: if it commits, this message is a duplicate; if it rolls
   * back, this message is written. The key is written in the caller's transaction, with the
   * message: a rollback removes both, and a retry of the request can enqueue it again.
   *
   * <p>Bad input throws {@link InvalidInputException} and writes nothing, as for {@code enqueue}.
   * Under {@code REPEATABLE READ} or {@code SERIALIZABLE}, a key committed by a transaction that
   * started after the caller's snapshot makes PostgreSQL fail the statement with a serialization
   * failure (SQLState 40001), which the caller retries as any such failure; {@code READ COMMITTED}
   * (PostgreSQL's default) reports the duplicate.
   */
  public List<EnqueueOutcome> enqueueOnce(DSLContext dsl, List<NewMessage> given) {
    long started = System.nanoTime();
    List<NewMessage> messages = prepared(dsl, given, true);
    if (messages.isEmpty()) {
      return List.of();
    }
    List<EnqueueOutcome> outcomes;
    if (messages.stream().allMatch(m -> m.idempotencyKey() == null)) {
      outcomes = enqueued(messages, insertRows(dsl, dsl, messages));
    } else {
      tableChecks.beforeWrite(dsl, SchemaNames.IDEMPOTENCY_KEYS);
      outcomes = jdbc.atomically(dsl, tx -> writeOnce(dsl, tx, messages));
    }
    if (!eventListeners.isEmpty()) {
      reportEnqueued((int) outcomes.stream().filter(o -> !o.duplicate()).count(), started);
    }
    return outcomes;
  }

  private void reportEnqueued(int count, long started) {
    if (count == 0) {
      return;
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    for (StoreEventListener listener : eventListeners) {
      listener.enqueued(count, took);
    }
  }

  private List<Long> write(DSLContext dsl, List<NewMessage> given) {
    List<NewMessage> messages = prepared(dsl, given, false);
    if (messages.isEmpty()) {
      return List.of();
    }
    return insertRows(dsl, dsl, messages);
  }

  /**
   * The messages with the contributed headers, once every check passed and the outbox was checked;
   * throws {@link InvalidInputException} before any SQL otherwise. Messages with a key are refused
   * unless {@code keysAllowed}.
   */
  private List<NewMessage> prepared(DSLContext dsl, List<NewMessage> given, boolean keysAllowed) {
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
    if (!keysAllowed) {
      List<String> keyed = new ArrayList<>();
      for (int i = 0; i < given.size(); i++) {
        if (given.get(i).idempotencyKey() != null) {
          keyed.add(
              (given.size() == 1 ? "" : "messages[" + i + "]: ")
                  + "a message with an idempotencyKey must be enqueued with enqueueOnce, which"
                  + " reports a duplicate instead of writing it again");
        }
      }
      if (!keyed.isEmpty()) {
        throw new InvalidInputException(keyed);
      }
    }
    List<NewMessage> messages = withContributedHeaders(given);
    checkSendable(messages);
    tableChecks.beforeWrite(dsl, SchemaNames.OUTBOX);
    return messages;
  }

  /**
   * Inserts {@code messages} with the statements of {@code dsl}; tells the listeners on the
   * caller's configuration. Ordered or more than one insert: atomically.
   */
  private List<Long> insertRows(DSLContext caller, DSLContext dsl, List<NewMessage> messages) {
    Set<Integer> lanes = new TreeSet<>();
    for (NewMessage message : messages) {
      String key = message.orderingKey();
      if (key != null) {
        lanes.add(Lanes.laneOf(key, options.laneCount()));
      }
    }
    if (lanes.isEmpty() && messages.size() <= OutboxInserts.ROWS_PER_INSERT) {
      // One statement: atomic on any connection.
      List<Long> ids = outbox.insert(dsl, messages, options.laneCount());
      notifyListeners(caller, messages, ids, lanes);
      return ids;
    }
    return jdbc.atomically(
        dsl,
        tx -> {
          List<Long> inserted =
              lanes.isEmpty()
                  ? outbox.insert(tx, messages, options.laneCount())
                  : outbox.lockKeysAndInsert(tx, advisoryNamespace, messages, options.laneCount());
          notifyListeners(caller, messages, inserted, lanes);
          return inserted;
        });
  }

  /**
   * Claims the keys (the first message of each key in the list carries it), reads the first enqueue
   * of those another transaction holds, and inserts the messages that carry a key they claimed or
   * have none; in {@code tx}, one transaction.
   */
  private List<EnqueueOutcome> writeOnce(
      DSLContext caller, DSLContext tx, List<NewMessage> messages) {
    Map<String, Integer> carriers = new TreeMap<>();
    for (int i = 0; i < messages.size(); i++) {
      String key = messages.get(i).idempotencyKey();
      if (key != null) {
        carriers.putIfAbsent(key, i);
      }
    }
    Map<String, IdempotencyKeys.KeyRow> claimed = new HashMap<>();
    Map<String, IdempotencyKeys.KeyRow> firsts = new HashMap<>();
    Map<String, Integer> unresolved = carriers;
    // A key held by another transaction that the key retention deletes between the claim and the
    // read is free again: the next round claims it. A round resolves every key unless the
    // retention deletes one in that instant; a third such loss in a row is a bug.
    for (int round = 0; !unresolved.isEmpty(); round++) {
      if (round == 3) {
        throw new IllegalStateException(
            "idempotency keys neither inserted nor found three times: " + unresolved.keySet());
      }
      Map<String, UUID> wanted = new TreeMap<>();
      unresolved.forEach((key, i) -> wanted.put(key, messages.get(i).messageId()));
      Map<String, IdempotencyKeys.KeyRow> now = keys.claim(tx, wanted);
      claimed.putAll(now);
      List<String> held = new ArrayList<>();
      for (String key : wanted.keySet()) {
        if (!now.containsKey(key)) {
          held.add(key);
        }
      }
      if (!held.isEmpty()) {
        firsts.putAll(keys.find(tx, held));
      }
      Map<String, Integer> next = new TreeMap<>();
      for (String key : held) {
        if (!firsts.containsKey(key)) {
          next.put(key, unresolved.get(key));
        }
      }
      unresolved = next;
    }
    firsts.putAll(claimed);
    boolean[] writes = new boolean[messages.size()];
    List<NewMessage> written = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      String key = messages.get(i).idempotencyKey();
      writes[i] =
          key == null || (claimed.containsKey(key) && Integer.valueOf(i).equals(carriers.get(key)));
      if (writes[i]) {
        written.add(messages.get(i));
      }
    }
    List<Long> ids = written.isEmpty() ? List.of() : insertRows(caller, tx, written);
    List<EnqueueOutcome> outcomes = new ArrayList<>(messages.size());
    int next = 0;
    for (int i = 0; i < messages.size(); i++) {
      NewMessage message = messages.get(i);
      if (writes[i]) {
        outcomes.add(new EnqueueOutcome.Enqueued(ids.get(next++), message.messageId()));
      } else {
        String key = Objects.requireNonNull(message.idempotencyKey());
        IdempotencyKeys.KeyRow first = Objects.requireNonNull(firsts.get(key));
        outcomes.add(new EnqueueOutcome.Duplicate(key, first.messageId(), first.createdAt()));
      }
    }
    return List.copyOf(outcomes);
  }

  private static List<EnqueueOutcome> enqueued(List<NewMessage> messages, List<Long> ids) {
    List<EnqueueOutcome> outcomes = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      outcomes.add(new EnqueueOutcome.Enqueued(ids.get(i), messages.get(i).messageId()));
    }
    return List.copyOf(outcomes);
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
      // Identity on purpose: withHeadersAdded returns the message itself when it adds nothing.
      @SuppressWarnings("ReferenceEquality")
      boolean changed = message != original;
      if (changed) {
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
   * The PostgreSQL notification channel of this store's lanes: {@code relayer_lanes_} followed by
   * the first 16 hexadecimal digits of the SHA-256 of the quoted, qualified outbox table name (for
   * example of {@code "public"."relayer_outbox"}). A notification's payload is a list of lane
   * numbers ({@link Lanes#payloads}).
   */
  public String laneChannel() {
    return laneChannel;
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
  // Schema
  // ---------------------------------------------------------------------------------------------

  /**
   * Checks that the six tables of schema version {@value
   * dev.relayer.schema.PostgreSqlOutboxSchema#CURRENT_VERSION} exist with every column Relayer
   * uses, of the types and nullability it relies on, and that its lane key index exists and is
   * valid; throws {@link dev.relayer.api.SchemaMismatchException} naming the first mismatch. An
   * install at version 1 (without the operations table), at version 2 (without the lane key index,
   * which the ordered-lane claim needs to stay fast on a large outbox) or at version 3 (without the
   * idempotency keys table, which {@link #enqueueOnce} and the key retention use) fails, naming the
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
}
