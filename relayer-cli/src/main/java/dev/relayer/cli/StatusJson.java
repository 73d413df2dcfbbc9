package dev.relayer.cli;

import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.LiveInstance;
import dev.relayer.dispatch.RelayerStatus;
import dev.relayer.store.health.BacklogBreakdown;
import dev.relayer.store.health.BacklogCounts;
import dev.relayer.store.health.BacklogGroup;
import dev.relayer.store.health.HorizonHolder;
import dev.relayer.store.health.LeaseState;
import dev.relayer.store.health.TableDeadTuples;
import dev.relayer.store.health.XminHorizon;
import dev.relayer.store.ops.DeadGroup;
import dev.relayer.store.ops.ParkedKey;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The document {@code relayer status --json} prints; the field names are documented in {@code
 * docs/operating.md} and stable. Ages are seconds with millisecond precision, instants ISO-8601
 * UTC, absent values {@code null}.
 */
final class StatusJson {

  private StatusJson() {}

  static Map<String, @Nullable Object> of(RelayerStatus status) {
    HealthReport report = status.health();
    BacklogBreakdown backlog = status.backlog();
    Map<String, @Nullable Object> doc = new LinkedHashMap<>();
    doc.put("store", status.store());
    doc.put("at", report.at());
    doc.put("status", report.status().name().toLowerCase(Locale.ROOT));
    doc.put("reasons", report.reasons());
    doc.put("eligible", report.eligible());
    doc.put("oldest_eligible_age_seconds", seconds(report.oldestEligibleAge()));
    doc.put("oldest_pending_age_seconds", seconds(report.oldestPendingAge()));
    doc.put("retrying", report.retrying());
    doc.put("oldest_retrying_age_seconds", seconds(report.oldestRetryingAge()));
    doc.put("scheduled", backlog.total().scheduled());
    doc.put("never_handed_off", report.neverHandedOff());
    doc.put("row_limit_reached", report.rowLimitReached());
    doc.put("parked_keys", report.parkedKeys());
    doc.put("oldest_parked_age_seconds", seconds(report.oldestParkedAge()));
    doc.put("dead_rows", report.deadRows());
    doc.put("dead_rows_last_hour", report.deadRowsLastHour());

    Map<String, @Nullable Object> breakdown = new LinkedHashMap<>();
    breakdown.put("by", backlog.by().name().toLowerCase(Locale.ROOT));
    breakdown.put("limit", status.limit());
    List<Object> groups = new ArrayList<>();
    for (BacklogGroup group : backlog.groups()) {
      Map<String, @Nullable Object> item = new LinkedHashMap<>();
      switch (backlog.by()) {
        case TRANSPORT -> item.put("transport", group.transport());
        case DESTINATION -> {
          item.put("transport", group.transport());
          item.put("destination", group.destination());
        }
        case TENANT -> item.put("tenant_id", group.tenantId());
      }
      groups.add(counts(item, group.counts()));
    }
    breakdown.put("groups", groups);
    Map<String, @Nullable Object> others = new LinkedHashMap<>();
    others.put("groups", backlog.otherGroups());
    breakdown.put("others", counts(others, backlog.others()));
    breakdown.put("total", counts(new LinkedHashMap<>(), backlog.total()));
    doc.put("backlog", breakdown);

    List<Object> parked = new ArrayList<>();
    for (ParkedKey k : status.longestParked()) {
      parked.add(RowsJson.parkedKey(k));
    }
    doc.put("parked", parked);

    List<Object> dead = new ArrayList<>();
    for (DeadGroup g : status.deadGroups()) {
      dead.add(RowsJson.deadGroup(g));
    }
    doc.put("dead_groups", dead);
    doc.put("dead_rows_in_other_groups", status.otherDeadRows());

    List<Object> leases = new ArrayList<>();
    for (LeaseState lease : report.leases()) {
      Map<String, @Nullable Object> item = new LinkedHashMap<>();
      item.put("name", lease.name());
      item.put("owner", lease.owner());
      item.put("expires_at", lease.expiresAt());
      item.put("live", status.isLive(lease));
      leases.add(item);
    }
    doc.put("leases", leases);
    List<Object> instances = new ArrayList<>();
    for (LiveInstance instance : status.instances()) {
      Map<String, @Nullable Object> item = new LinkedHashMap<>();
      item.put("owner", instance.owner());
      item.put("leases", instance.leases());
      item.put("heartbeat_expires_at", instance.heartbeatExpiresAt().orElse(null));
      item.put("expires_at", instance.expiresAt());
      instances.add(item);
    }
    doc.put("instances", instances);

    List<Object> tables = new ArrayList<>();
    for (TableDeadTuples table : report.tables()) {
      Map<String, @Nullable Object> item = new LinkedHashMap<>();
      item.put("table", table.table());
      item.put("name", table.qualifiedName());
      item.put("live_tuples", table.liveTuples());
      item.put("dead_tuples", table.deadTuples());
      item.put("last_vacuum", table.lastVacuum().orElse(null));
      item.put("last_autovacuum", table.lastAutovacuum().orElse(null));
      tables.add(item);
    }
    doc.put("tables", tables);
    XminHorizon horizon = report.xminHorizon();
    Map<String, @Nullable Object> xmin = new LinkedHashMap<>();
    xmin.put("oldest_xmin_age", horizon.oldest().map(HorizonHolder::xminAge).orElse(null));
    List<Object> holders = new ArrayList<>();
    for (HorizonHolder holder : horizon.holders()) {
      Map<String, @Nullable Object> item = new LinkedHashMap<>();
      item.put("kind", kind(holder));
      item.put("xmin_age", holder.xminAge());
      item.put("description", holder.describe());
      holders.add(item);
    }
    xmin.put("holders", holders);
    xmin.put("hidden_sessions", horizon.hiddenSessions());
    doc.put("xmin_horizon", xmin);
    return doc;
  }

  private static String kind(HorizonHolder holder) {
    if (holder instanceof HorizonHolder.Session) {
      return "session";
    }
    return holder instanceof HorizonHolder.ReplicationSlot
        ? "replication_slot"
        : "prepared_transaction";
  }

  private static Map<String, @Nullable Object> counts(
      Map<String, @Nullable Object> item, BacklogCounts c) {
    item.put("rows", c.rows());
    item.put("eligible", c.eligible());
    item.put("in_flight", c.inFlight());
    item.put("retrying", c.retrying());
    item.put("scheduled", c.scheduled());
    item.put("parked", c.parked());
    item.put("oldest_pending_age_seconds", seconds(c.oldestPendingAge()));
    item.put("oldest_eligible_age_seconds", seconds(c.oldestEligibleAge()));
    return item;
  }

  /** An age as seconds with millisecond precision ({@code 12.345}); null when there is none. */
  private static @Nullable BigDecimal seconds(Optional<Duration> age) {
    return age.map(d -> BigDecimal.valueOf(d.toMillis(), 3)).orElse(null);
  }
}
