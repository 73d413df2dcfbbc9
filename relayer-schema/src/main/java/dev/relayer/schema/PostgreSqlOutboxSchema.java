package dev.relayer.schema;

import static dev.relayer.schema.SchemaNames.IDEMPOTENCY_KEYS;
import static dev.relayer.schema.SchemaNames.INBOX;
import static dev.relayer.schema.SchemaNames.LEASES;
import static dev.relayer.schema.SchemaNames.OPERATIONS;
import static dev.relayer.schema.SchemaNames.OUTBOX;
import static dev.relayer.schema.SchemaNames.OUTBOX_DEAD;
import static dev.relayer.schema.SchemaNames.OUTBOX_LANE_KEY_INDEX;

import dev.relayer.api.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The DDL of Relayer's tables for PostgreSQL: the single source of truth that both the {@code
 * relayer db script} command and the Liquibase changelog use.
 *
 * <h2>Versions</h2>
 *
 * The schema grows by numbered steps, each an explicit migration that only adds to what the steps
 * before it created, and each a changeset of its own in the Liquibase changelog:
 *
 * <ol>
 *   <li>the outbox, the dead table, the inbox and the leases, with their constraints and indexes
 *       (changeset {@code relayer-1-create-tables});
 *   <li>the audit trail of operator actions, {@code <prefix>operations} (changeset {@code
 *       relayer-2-operations});
 *   <li>the index of pending ordered rows by lane, key and id, {@code <prefix>outbox_lane_key_idx},
 *       which the ordered-lane claim walks key by key (changeset {@code relayer-3-lane-key-index});
 *   <li>the idempotency keys of enqueued messages, {@code <prefix>idempotency_keys}, with their
 *       retention index (changeset {@code relayer-4-idempotency-keys}).
 * </ol>
 *
 * {@link #createStatements} is every step, for a new install; {@link #upgradeStatements} the steps
 * after a given version, for an existing one; {@link #stepStatements} one step. An install has no
 * version marker: its version is the last step whose objects all exist (step 2's is the operations
 * table, step 3's the lane key index, step 4's the idempotency keys table), which {@code relayer db
 * verify} and the store's start check read from the catalog. A marker could claim a step whose
 * objects are missing; the objects themselves cannot.
 *
 * <p>Every statement uses {@code IF NOT EXISTS}, so running a script again keeps existing tables
 * and rows. It does not repair a table that exists with another shape: such a table is left as it
 * is, and Relayer reports the mismatch when it first touches it ({@code relayer db verify} lists
 * every difference). The script contains no transaction statements; wrap it in one if you want it
 * applied atomically.
 */
public final class PostgreSqlOutboxSchema {

  /** The version of the schema this release creates and needs: {@value}. */
  public static final int CURRENT_VERSION = 4;

  /** The longest idempotency key the table accepts, in characters (code points): {@value}. */
  public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 255;

  /** The nil UUID, which Relayer never uses as a message id or claim token. */
  static final String NIL_UUID = "'00000000-0000-0000-0000-000000000000'::uuid";

  private PostgreSqlOutboxSchema() {}

  /**
   * The whole script: every statement of {@link #createStatements}, each ended by {@code ;} and a
   * newline.
   */
  public static String createScript(SchemaOptions options) {
    return script(options, "schema version " + CURRENT_VERSION, createStatements(options));
  }

  /**
   * The script that upgrades an install at schema version {@code fromVersion} to {@link
   * #CURRENT_VERSION}: every statement of {@link #upgradeStatements}, each ended by {@code ;} and a
   * newline. From the current version it holds comments only.
   *
   * @throws InvalidInputException when {@code fromVersion} is not between 1 and {@link
   *     #CURRENT_VERSION}
   */
  public static String upgradeScript(SchemaOptions options, int fromVersion) {
    return script(
        options,
        "upgrade from schema version " + fromVersion + " to " + CURRENT_VERSION,
        upgradeStatements(options, fromVersion));
  }

  private static String script(SchemaOptions options, String what, List<String> statements) {
    StringBuilder script = new StringBuilder();
    script
        .append("-- Relayer schema for PostgreSQL: schema ")
        .append(commentText(Identifiers.quote(options.schema())))
        .append(", table prefix ")
        .append(commentText(Identifiers.quote(options.tablePrefix())))
        .append("\n-- ")
        .append(what)
        .append(".\n-- Safe to run again: every statement uses IF NOT EXISTS.\n\n");
    if (statements.isEmpty()) {
      script.append("-- Nothing to do: the install is already at this version.\n");
    }
    for (String statement : statements) {
      script.append(statement).append(";\n\n");
    }
    return script.toString();
  }

  /**
   * {@code text} made safe for a {@code --} comment: a quoted identifier may contain a line break,
   * which would end the comment and turn the rest of the identifier into SQL. Control characters
   * are shown as backslash escapes instead (a line feed as {@code \n}, others by code point); the
   * comment is for people only.
   */
  static String commentText(String text) {
    StringBuilder safe = new StringBuilder(text.length());
    text.codePoints()
        .forEach(
            c -> {
              if (c == '\n') {
                safe.append("\\n");
              } else if (c == '\r') {
                safe.append("\\r");
              } else if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
                safe.append(String.format("\\u%04x", c));
              } else {
                safe.appendCodePoint(c);
              }
            });
    return safe.toString();
  }

  /**
   * The statements that create the whole current schema, without {@code ;}: every step from 1 to
   * {@link #CURRENT_VERSION}, in order.
   */
  public static List<String> createStatements(SchemaOptions options) {
    List<String> statements = new ArrayList<>(stepStatements(options, 1));
    statements.addAll(upgradeStatements(options, 1));
    return List.copyOf(statements);
  }

  /**
   * The statements that take an install at schema version {@code fromVersion} to {@link
   * #CURRENT_VERSION}, without {@code ;}: the steps after {@code fromVersion}, in order; none from
   * the current version.
   *
   * @throws InvalidInputException when {@code fromVersion} is not between 1 and {@link
   *     #CURRENT_VERSION}
   */
  public static List<String> upgradeStatements(SchemaOptions options, int fromVersion) {
    checkVersion("fromVersion", fromVersion);
    List<String> statements = new ArrayList<>();
    for (int step = fromVersion + 1; step <= CURRENT_VERSION; step++) {
      statements.addAll(stepStatements(options, step));
    }
    return List.copyOf(statements);
  }

  /**
   * The statements of one step, without {@code ;}: step 1 creates the schema and the four tables of
   * version 1 (exactly what version 1 of Relayer created), step 2 the operations table, step 3 the
   * lane key index on the outbox, step 4 the idempotency keys table.
   *
   * @throws InvalidInputException when {@code version} is not between 1 and {@link
   *     #CURRENT_VERSION}
   */
  public static List<String> stepStatements(SchemaOptions options, int version) {
    SchemaNames n = Objects.requireNonNull(options, "options").names();
    checkVersion("version", version);
    return switch (version) {
      case 1 -> versionOne(n);
      case 2 -> versionTwo(n);
      case 3 -> versionThree(n);
      default -> versionFour(n);
    };
  }

  private static void checkVersion(String name, int version) {
    if (version < 1 || version > CURRENT_VERSION) {
      throw new InvalidInputException(
          name
              + " must be a schema version from 1 to "
              + CURRENT_VERSION
              + " (the current one), was "
              + version);
    }
  }

  private static List<String> versionTwo(SchemaNames n) {
    return List.of(operations(n), index(n, "operations_at_idx", OPERATIONS, "(at)"));
  }

  /**
   * The pending ordered rows by lane, key and id: the ordered-lane claim walks it to find each key
   * of a lane (a loose index scan) and the head of each key (one probe), without reading the rows
   * behind a key's head. Unordered and parked rows are not in it.
   */
  private static List<String> versionThree(SchemaNames n) {
    return List.of(
        index(
            n,
            OUTBOX_LANE_KEY_INDEX,
            OUTBOX,
            "(lane, ordering_key, id) WHERE status = 'pending' AND ordering_key IS NOT NULL"));
  }

  /**
   * The idempotency keys: one row per key, written by the enqueue in the application's transaction
   * (so a rolled-back enqueue leaves no key), unique by the primary key, and deleted by the cleanup
   * pass once older than the key retention ({@code created_at} index). The key does not point at
   * the outbox row: that row is deleted when sent, moved when dead, and the key outlives both.
   */
  private static List<String> versionFour(SchemaNames n) {
    return List.of(
        "CREATE TABLE IF NOT EXISTS "
            + n.qualified(IDEMPOTENCY_KEYS)
            + " (\n"
            + "  idempotency_key text NOT NULL,\n"
            + "  message_id uuid NOT NULL,\n"
            + "  created_at timestamptz NOT NULL DEFAULT now(),\n"
            + constraint(n, "idempotency_keys_pkey", "PRIMARY KEY (idempotency_key)")
            + constraint(
                n,
                "idempotency_keys_key_check",
                "CHECK (idempotency_key <> '' AND char_length(idempotency_key) <= "
                    + MAX_IDEMPOTENCY_KEY_LENGTH
                    + ")")
            + lastConstraint(
                n, "idempotency_keys_id_check", "CHECK (message_id <> " + NIL_UUID + ")")
            + ")",
        index(n, "idempotency_keys_at_idx", IDEMPOTENCY_KEYS, "(created_at)"));
  }

  private static String operations(SchemaNames n) {
    return "CREATE TABLE IF NOT EXISTS "
        + n.qualified(OPERATIONS)
        + " (\n"
        + "  id bigint GENERATED ALWAYS AS IDENTITY,\n"
        + "  at timestamptz NOT NULL DEFAULT now(),\n"
        + "  operator text NOT NULL,\n"
        + "  operation text NOT NULL,\n"
        + "  filter jsonb NOT NULL DEFAULT '{}'::jsonb,\n"
        + "  rows bigint NOT NULL,\n"
        + constraint(n, "operations_pkey", "PRIMARY KEY (id)")
        + constraint(n, "operations_operator_check", "CHECK (operator <> '')")
        + constraint(
            n,
            "operations_operation_check",
            "CHECK (operation IN ('dead-replay', 'dead-purge', 'parked-retry', 'parked-skip',"
                + " 'parked-release'))")
        + constraint(n, "operations_filter_check", "CHECK (jsonb_typeof(filter) = 'object')")
        + lastConstraint(n, "operations_rows_check", "CHECK (rows >= 0)")
        + ")";
  }

  private static List<String> versionOne(SchemaNames n) {
    return List.of(
        "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(n.schema()),
        outbox(n),
        index(n, "outbox_pending_idx", OUTBOX, "(lane, id) WHERE status = 'pending'"),
        index(n, "outbox_deliver_at_idx", OUTBOX, "(deliver_at) WHERE deliver_at IS NOT NULL"),
        index(n, "outbox_parked_idx", OUTBOX, "(lane, ordering_key) WHERE status = 'parked'"),
        outboxDead(n),
        index(n, "outbox_dead_failed_at_idx", OUTBOX_DEAD, "(failed_at)"),
        inbox(n),
        index(n, "inbox_processed_at_idx", INBOX, "(processed_at)"),
        leases(n));
  }

  private static String outbox(SchemaNames n) {
    return "CREATE TABLE IF NOT EXISTS "
        + n.qualified(OUTBOX)
        + " (\n"
        + "  id bigint GENERATED ALWAYS AS IDENTITY,\n"
        + MESSAGE_COLUMNS
        + "  created_at timestamptz NOT NULL DEFAULT now(),\n"
        + DELIVERY_COLUMNS
        + "  status text NOT NULL DEFAULT 'pending',\n"
        + "  claim_token uuid,\n"
        + "  claim_expires_at timestamptz,\n"
        + "  parked_at timestamptz,\n"
        + constraint(n, "outbox_pkey", "PRIMARY KEY (id)")
        + messageChecks(n, OUTBOX)
        + constraint(n, "outbox_transport_check", "CHECK (transport <> '')")
        + constraint(n, "outbox_destination_check", "CHECK (destination <> '')")
        + constraint(n, "outbox_message_type_check", "CHECK (message_type <> '')")
        + constraint(n, "outbox_status_check", "CHECK (status IN ('pending', 'parked'))")
        + constraint(
            n,
            "outbox_parked_check",
            "CHECK (status = 'pending' AND parked_at IS NULL"
                + " OR status = 'parked' AND parked_at IS NOT NULL"
                + " AND ordering_key IS NOT NULL AND claim_token IS NULL)")
        + constraint(n, "outbox_claim_token_check", "CHECK (claim_token <> " + NIL_UUID + ")")
        + lastConstraint(
            n, "outbox_claim_check", "CHECK ((claim_token IS NULL) = (claim_expires_at IS NULL))")
        + ")";
  }

  private static String outboxDead(SchemaNames n) {
    return "CREATE TABLE IF NOT EXISTS "
        + n.qualified(OUTBOX_DEAD)
        + " (\n"
        + "  id bigint NOT NULL,\n"
        + MESSAGE_COLUMNS
        + "  created_at timestamptz NOT NULL,\n"
        + DELIVERY_COLUMNS
        + "  failed_at timestamptz NOT NULL,\n"
        + "  reason text NOT NULL,\n"
        + "  error_fingerprint text,\n"
        + messageChecks(n, OUTBOX_DEAD)
        + lastConstraint(n, "outbox_dead_pkey", "PRIMARY KEY (id)")
        + ")";
  }

  private static String inbox(SchemaNames n) {
    return "CREATE TABLE IF NOT EXISTS "
        + n.qualified(INBOX)
        + " (\n"
        + "  consumer text NOT NULL,\n"
        + "  message_id uuid NOT NULL,\n"
        + "  processed_at timestamptz NOT NULL DEFAULT now(),\n"
        + constraint(n, "inbox_pkey", "PRIMARY KEY (consumer, message_id)")
        + lastConstraint(n, "inbox_message_id_check", "CHECK (message_id <> " + NIL_UUID + ")")
        + ")";
  }

  private static String leases(SchemaNames n) {
    return "CREATE TABLE IF NOT EXISTS "
        + n.qualified(LEASES)
        + " (\n"
        + "  name text NOT NULL,\n"
        + "  owner text NOT NULL,\n"
        + "  expires_at timestamptz NOT NULL,\n"
        + lastConstraint(n, "leases_pkey", "PRIMARY KEY (name)")
        + ")";
  }

  /** Columns describing the message, the same in the outbox and the dead table. */
  private static final String MESSAGE_COLUMNS =
      """
        message_id uuid NOT NULL,
        transport text NOT NULL,
        destination text NOT NULL,
        message_type text NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
        body bytea NOT NULL,
      """;

  /** Columns describing the delivery so far, the same in the outbox and the dead table. */
  private static final String DELIVERY_COLUMNS =
      """
        ordering_key text,
        lane integer,
        deliver_at timestamptz,
        tenant_id text,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
      """;

  /** The rules both the outbox and the dead table enforce on the columns they share. */
  private static String messageChecks(SchemaNames n, String table) {
    return constraint(n, table + "_message_id_check", "CHECK (message_id <> " + NIL_UUID + ")")
        + constraint(n, table + "_headers_check", "CHECK (jsonb_typeof(headers) = 'object')")
        + constraint(n, table + "_lane_check", "CHECK (lane >= 0)")
        + constraint(
            n, table + "_ordering_check", "CHECK ((ordering_key IS NULL) = (lane IS NULL))")
        + constraint(n, table + "_attempts_check", "CHECK (attempts >= 0)");
  }

  private static String constraint(SchemaNames n, String base, String definition) {
    return "  CONSTRAINT " + n.quoted(base) + " " + definition + ",\n";
  }

  private static String lastConstraint(SchemaNames n, String base, String definition) {
    return "  CONSTRAINT " + n.quoted(base) + " " + definition + "\n";
  }

  private static String index(SchemaNames n, String base, String table, String definition) {
    return "CREATE INDEX IF NOT EXISTS "
        + n.quoted(base)
        + " ON "
        + n.qualified(table)
        + " "
        + definition;
  }
}
