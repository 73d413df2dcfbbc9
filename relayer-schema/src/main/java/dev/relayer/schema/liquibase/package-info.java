/**
 * Relayer's Liquibase change type ({@code relayer:createRelayerTables}), which renders the tables
 * of {@link dev.relayer.schema.PostgreSqlOutboxSchema} inside a user's changelog.
 */
@NullMarked
package dev.relayer.schema.liquibase;

import org.jspecify.annotations.NullMarked;
