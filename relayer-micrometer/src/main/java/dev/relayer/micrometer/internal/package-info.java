/** The meters behind {@link dev.relayer.micrometer.RelayerMetrics}; not an API. */
@NullMarked
package dev.relayer.micrometer.internal;

import org.jspecify.annotations.NullMarked;
