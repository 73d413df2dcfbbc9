/**
 * Where Relayer's tables live and how they are created.
 *
 * <ul>
 *   <li>{@link dev.relayer.schema.SchemaOptions}: schema (default {@code public}) and table prefix
 *       (default {@code relayer_}, may be empty).
 *   <li>{@link dev.relayer.schema.Identifiers}: every identifier is quoted (embedded {@code "}
 *       doubled; punctuation, spaces, upper case and Unicode kept) and must fit 63 bytes of UTF-8;
 *       anything else is rejected before any SQL exists.
 *   <li>{@link dev.relayer.schema.PostgreSqlOutboxSchema}: the DDL, the single source of truth for
 *       both {@code relayer db script} and the Liquibase changelog {@code
 *       db/changelog/relayer/db.changelog-relayer.xml}.
 *   <li>{@link dev.relayer.schema.liquibase.CreateRelayerTables}: the changelog's change, which
 *       validates the changelog parameters {@code relayer.schema} and {@code relayer.prefix}; and
 *       {@link dev.relayer.schema.liquibase.RelayerChangeLogParser}, which refuses a value holding
 *       <code>${</code> before Liquibase expands it (a value that refers to its own parameter would
 *       make Liquibase expand it without end).
 * </ul>
 *
 * <p>The script uses {@code IF NOT EXISTS} throughout: running it again keeps existing rows, and it
 * never alters a table that already exists, even one of an older or foreign shape.
 */
@NullMarked
package dev.relayer.schema;

import org.jspecify.annotations.NullMarked;
