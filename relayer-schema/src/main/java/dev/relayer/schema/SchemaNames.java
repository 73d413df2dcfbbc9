package dev.relayer.schema;

import java.util.ArrayList;
import java.util.List;

/**
 * Every identifier Relayer creates, derived from a {@link SchemaOptions}: six tables and their
 * indexes and constraints, all named {@code <prefix><base>}. The base names are fixed; they are
 * listed here once, and both the SQL script and the validation read them from here.
 */
public final class SchemaNames {

  /** Base name of the pending-messages table. */
  public static final String OUTBOX = "outbox";

  /** Base name of the table of rows that will not be retried automatically. */
  public static final String OUTBOX_DEAD = "outbox_dead";

  /** Base name of the consumed-message-id table. */
  public static final String INBOX = "inbox";

  /** Base name of the lease table. */
  public static final String LEASES = "leases";

  /** Base name of the audit trail of operator actions (schema version 2). */
  public static final String OPERATIONS = "operations";

  /**
   * Base name of the index of pending ordered rows by lane, key and id (schema version 3), which
   * the ordered-lane claim walks.
   */
  public static final String OUTBOX_LANE_KEY_INDEX = "outbox_lane_key_idx";

  /**
   * Base name of the table of idempotency keys (schema version 4): one row per key an enqueue was
   * given, kept for the key retention whatever happens to the message's row.
   */
  public static final String IDEMPOTENCY_KEYS = "idempotency_keys";

  /** Every base name, in creation order: tables, then their indexes and constraints. */
  static final List<String> BASE_NAMES =
      List.of(
          OUTBOX,
          OUTBOX_DEAD,
          INBOX,
          LEASES,
          "outbox_pkey",
          "outbox_message_id_check",
          "outbox_transport_check",
          "outbox_destination_check",
          "outbox_message_type_check",
          "outbox_headers_check",
          "outbox_lane_check",
          "outbox_ordering_check",
          "outbox_attempts_check",
          "outbox_status_check",
          "outbox_parked_check",
          "outbox_claim_token_check",
          "outbox_claim_check",
          "outbox_pending_idx",
          "outbox_deliver_at_idx",
          "outbox_parked_idx",
          "outbox_dead_pkey",
          "outbox_dead_message_id_check",
          "outbox_dead_headers_check",
          "outbox_dead_lane_check",
          "outbox_dead_ordering_check",
          "outbox_dead_attempts_check",
          "outbox_dead_failed_at_idx",
          "inbox_pkey",
          "inbox_message_id_check",
          "inbox_processed_at_idx",
          "leases_pkey",
          OPERATIONS,
          "operations_pkey",
          "operations_operator_check",
          "operations_operation_check",
          "operations_filter_check",
          "operations_rows_check",
          "operations_at_idx",
          OUTBOX_LANE_KEY_INDEX,
          IDEMPOTENCY_KEYS,
          "idempotency_keys_pkey",
          "idempotency_keys_key_check",
          "idempotency_keys_id_check",
          "idempotency_keys_at_idx");

  private final String schema;
  private final String prefix;

  SchemaNames(SchemaOptions options) {
    this.schema = options.schema();
    this.prefix = options.tablePrefix();
  }

  /** Problems with the names {@code prefix} would produce; empty when all of them are valid. */
  static List<String> problems(String prefix) {
    List<String> problems = new ArrayList<>();
    String longest = null;
    for (String base : BASE_NAMES) {
      if (Identifiers.problem("identifier", prefix + base).isPresent()) {
        problems.add(base);
        if (longest == null || base.length() > longest.length()) {
          longest = base;
        }
      }
    }
    if (longest == null) {
      return List.of();
    }
    // One problem, for the longest name: a long prefix makes every name too long, and a message
    // listing all of them would repeat the prefix thirty times.
    String problem = Identifiers.problem("identifier", prefix + longest).orElseThrow();
    if (problems.size() > 1) {
      problem += " (and " + (problems.size() - 1) + " more identifiers with this prefix)";
    }
    return List.of(problem);
  }

  /** The schema, unquoted. */
  public String schema() {
    return schema;
  }

  /** The table prefix, unquoted; may be empty. */
  public String prefix() {
    return prefix;
  }

  /** {@code <prefix><base>}, unquoted. */
  public String name(String base) {
    return prefix + base;
  }

  /** {@code "<schema>"."<prefix><base>"}, quoted and qualified. */
  public String qualified(String base) {
    return Identifiers.qualify(schema, name(base));
  }

  /** {@code "<prefix><base>"}, quoted. */
  public String quoted(String base) {
    return Identifiers.quote(name(base));
  }
}
