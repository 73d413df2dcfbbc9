/**
 * A transport that keeps what it is sent in memory: for testing code that enqueues and dispatches
 * without a broker, and for trying Relayer out.
 *
 * <p>{@link dev.relayer.transport.memory.InMemoryTransport} records every message it accepted and
 * every attempt, and can be scripted to reject messages (for now or for good), to refuse messages
 * at enqueue, to fail whole batches, or to hang. Nothing leaves the JVM: a message it accepted is
 * gone when the process ends, so it is no transport for production.
 *
 * <p>The module depends on {@code relayer-api} (and JSpecify's annotations) only, so tests can use
 * it without the testkit's Testcontainers and embedded PostgreSQL.
 */
@NullMarked
package dev.relayer.transport.memory;

import org.jspecify.annotations.NullMarked;
