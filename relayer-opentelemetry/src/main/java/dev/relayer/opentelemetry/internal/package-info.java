/** Implementation details of {@code dev.relayer.opentelemetry}; not an API. */
@NullMarked
package dev.relayer.opentelemetry.internal;

import org.jspecify.annotations.NullMarked;
