/**
 * Micrometer metrics for Relayer: {@link dev.relayer.micrometer.RelayerMetrics} binds a {@link
 * dev.relayer.dispatch.Relayer}'s meters to a {@code MeterRegistry}; {@link
 * dev.relayer.micrometer.MeterNames} names them.
 *
 * <h2>What commit-to-send measures</h2>
 *
 * A row carries no commit time. {@value dev.relayer.micrometer.MeterNames#COMMIT_TO_SEND} runs from
 * when the row became due — its {@code created_at} (the database clock when the writing transaction
 * began, PostgreSQL's {@code now()}), or its {@code deliver_at} when that is later — to when its
 * send was recorded (the registry's wall clock, once the completion committed). So it includes the
 * rest of the writer's transaction after the insert, every failed attempt's backoff of a row that
 * was retried, and any difference between the database's and this JVM's clocks (negative results
 * count as zero).
 *
 * <h2>Decisions</h2>
 *
 * <ul>
 *   <li>The gauges reuse {@link dev.relayer.dispatch.Relayer#health()} rather than a query of their
 *       own: one code path for the figures the health indicator, the actuator endpoint and the
 *       metrics show.
 *   <li>Lease holders count live leases (not expired by the database clock the health check read
 *       with the xmin horizon); a holder that stopped renewing drops out when its lease expires.
 *   <li>Ages of nothing (no pending row) read 0, so that an alert on age above a threshold stays
 *       quiet on an empty outbox; the xmin horizon gauges read 0 when nothing the role may see
 *       holds it.
 * </ul>
 */
@NullMarked
package dev.relayer.micrometer;

import org.jspecify.annotations.NullMarked;
