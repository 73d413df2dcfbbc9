/**
 * An operator's reads and actions on parked keys and dead rows, and the audit trail: {@link
 * dev.relayer.store.ops.StoreOperations}. Each action that changes rows writes its audit row in the
 * transaction of its change. {@code RelayerOperator} in {@code relayer-dispatch} is the type
 * applications and tools call.
 */
@NullMarked
package dev.relayer.store.ops;

import org.jspecify.annotations.NullMarked;
