package dev.relayer.api.message;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the accessor that gives a {@link RelayerMessage}'s ordering key: messages with the same key
 * are delivered in commit order. Put it on a record component or on a public method without
 * parameters; its value's {@code toString()} is the key. At most one per class. A {@code null} or
 * empty key is refused at enqueue (a message is unordered when its class has no ordering key).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.RECORD_COMPONENT})
public @interface OrderingKey {}
