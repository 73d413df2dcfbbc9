/**
 * Extension points of the dispatcher: {@link dev.relayer.dispatch.spi.RelayerEventListener} for
 * metrics, tracing and tests. Transports implement {@link dev.relayer.api.spi.Transport} from
 * {@code relayer-api}.
 */
@NullMarked
package dev.relayer.dispatch.spi;

import org.jspecify.annotations.NullMarked;
