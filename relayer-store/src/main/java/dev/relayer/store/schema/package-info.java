/**
 * The schema checks: {@link dev.relayer.store.schema.SchemaVerifier} (every table, column and the
 * lane key index, up front or before a table's first write) and {@link
 * dev.relayer.store.schema.SchemaDrift} (every difference from the current schema script), with the
 * report they return.
 */
@NullMarked
package dev.relayer.store.schema;

import org.jspecify.annotations.NullMarked;
