package dev.relayer.schema;

import static dev.relayer.schema.SchemaNames.INBOX;
import static dev.relayer.schema.SchemaNames.LEASES;
import static dev.relayer.schema.SchemaNames.OUTBOX;
import static dev.relayer.schema.SchemaNames.OUTBOX_DEAD;

import java.util.List;
import java.util.Objects;

/**
 * The DDL of Relayer's four tables for PostgreSQL: the single source of truth that both the {@code
 * relayer db script} command and the Liquibase changelog use.
 *
 * <p>Every statement uses {@code IF NOT EXISTS}, so running the script again keeps existing tables
 * and rows. It does not repair or upgrade a table that exists with another shape: such a table is
 * left as it is, and Relayer reports the mismatch when it first touches it. The script contains no
 * transaction statements; wrap it in one if you want it applied atomically.
 */
public final class PostgreSqlOutboxSchema {

  /** The nil UUID, which Relayer never uses as a message id or claim token. */
  static final String NIL_UUID = "'00000000-0000-0000-0000-000000000000'::uuid";

  private PostgreSqlOutboxSchema() {}

  /**
   * The whole script: every statement of {@link #createStatements}, each ended by {@code ;} and a
   * newline.
   */
  public static String createScript(SchemaOptions options) {
    StringBuilder script = new StringBuilder();
    script
        .append("-- Relayer schema for PostgreSQL: schema ")
        .append(commentText(Identifiers.quote(options.schema())))
        .append(", table prefix ")
        .append(commentText(Identifiers.quote(options.tablePrefix())))
        .append("\n-- Safe to run again: every statement uses IF NOT EXISTS.\n\n");
    for (String statement : createStatements(options)) {
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
   * The statements that create the schema, the four tables and their indexes, without {@code ;}.
   */
  public static List<String> createStatements(SchemaOptions options) {
    SchemaNames n = Objects.requireNonNull(options, "options").names();
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
      "  message_id uuid NOT NULL,\n"
          + "  transport text NOT NULL,\n"
          + "  destination text NOT NULL,\n"
          + "  message_type text NOT NULL,\n"
          + "  headers jsonb NOT NULL DEFAULT '{}'::jsonb,\n"
          + "  body bytea NOT NULL,\n";

  /** Columns describing the delivery so far, the same in the outbox and the dead table. */
  private static final String DELIVERY_COLUMNS =
      "  ordering_key text,\n"
          + "  lane integer,\n"
          + "  deliver_at timestamptz,\n"
          + "  tenant_id text,\n"
          + "  attempts integer NOT NULL DEFAULT 0,\n"
          + "  last_error text,\n";

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
