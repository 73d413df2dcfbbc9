package dev.relayer.api.message;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the accessor that gives a {@link RelayerMessage}'s tenant, carried with the message. Put it
 * on a record component or on a public method without parameters; its value's {@code toString()} is
 * the tenant, and {@code null} means no tenant. At most one per class.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.RECORD_COMPONENT})
public @interface TenantId {}
