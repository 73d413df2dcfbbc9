/**
 * PostgreSQL for tests, for Relayer's own build and for applications' tests.
 *
 * <p>{@link dev.relayer.testkit.TestPostgres} resolves one server per JVM: {@code RELAYER_PG_URL}
 * when set, else Testcontainers when a Docker engine answers, else an embedded PostgreSQL 17. Tests
 * isolate themselves with {@link dev.relayer.testkit.TestDatabase} (a fresh database, dropped on
 * close) and create Relayer's tables with {@link dev.relayer.testkit.RelayerSchemaInstaller}.
 */
@NullMarked
package dev.relayer.testkit;

import org.jspecify.annotations.NullMarked;
