package dev.relayer.store.health;

import java.time.Instant;
import java.util.Optional;

/**
 * One of Relayer's tables as PostgreSQL's cumulative statistics see it ({@code
 * pg_stat_user_tables}). The counts are estimates that the server updates asynchronously: a backend
 * reports its changes when its transaction ends (PostgreSQL 15 and later: at most about once a
 * second per backend), {@code VACUUM} and {@code ANALYZE} reset them.
 *
 * @param table the table's base name ({@link dev.relayer.schema.SchemaNames#OUTBOX} and so on,
 *     without the prefix)
 * @param qualifiedName the table as SQL names it, quoted and qualified
 * @param liveTuples {@code n_live_tup}: estimated live rows
 * @param deadTuples {@code n_dead_tup}: estimated dead row versions that no vacuum has removed yet
 * @param lastVacuum the later of {@code last_vacuum} and {@code last_autovacuum}; empty if neither
 *     ever ran on the table (since the statistics were last reset)
 * @param lastAutovacuum {@code last_autovacuum}; empty if autovacuum never processed the table
 */
public record TableDeadTuples(
    String table,
    String qualifiedName,
    long liveTuples,
    long deadTuples,
    Optional<Instant> lastVacuum,
    Optional<Instant> lastAutovacuum) {}
