/**
 * The rendering machinery the store's packages share: the name mapping to the configured schema and
 * prefix ({@link dev.relayer.store.internal.StoreDsl}), statements rendered once and run over JDBC
 * ({@link dev.relayer.store.internal.StoreJdbc}, {@link
 * dev.relayer.store.internal.RenderedStatement}, {@link dev.relayer.store.internal.Binds}), the
 * outbox's shared vocabulary ({@link dev.relayer.store.internal.OutboxSql}), key locks, the move to
 * the dead table, and the checks of input and tables. Public only because the store's packages
 * share it; not for applications, and a build rule keeps application-facing modules off it.
 */
@NullMarked
package dev.relayer.store.internal;

import org.jspecify.annotations.NullMarked;
