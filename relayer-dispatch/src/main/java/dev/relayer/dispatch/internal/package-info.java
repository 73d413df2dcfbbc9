/**
 * Relayer's dispatch machinery behind {@link dev.relayer.dispatch.Relayer}, {@link
 * dev.relayer.dispatch.RelayerDispatcher} and {@link dev.relayer.dispatch.RelayerMaintenance}:
 * direct dispatch, the sweeper, cleanup, sending and leases. Not an API; it may change in any
 * release.
 */
@NullMarked
package dev.relayer.dispatch.internal;

import org.jspecify.annotations.NullMarked;
