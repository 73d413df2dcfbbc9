package dev.relayer.spring.boot.inbox;

import dev.relayer.api.InvalidInputException;
import dev.relayer.inbox.IncomingMessage;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Runs a method annotated {@link InboxGuarded} inside its consumer's inbox guard: reads the message
 * id from the broker's message among the arguments, and proceeds only for a first delivery.
 */
final class InboxGuardedInterceptor implements MethodInterceptor {

  private final ObjectProvider<RelayerInbox> inbox;
  private final DeliveryReaders readers;

  /**
   * @param inbox the guards, looked up at the first call (the advisor is created before the
   *     application's beans)
   */
  InboxGuardedInterceptor(ObjectProvider<RelayerInbox> inbox, @Nullable ClassLoader classLoader) {
    this.inbox = inbox;
    this.readers = new DeliveryReaders(classLoader);
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Method method = invocation.getMethod();
    InboxGuarded guarded = AnnotatedElementUtils.findMergedAnnotation(method, InboxGuarded.class);
    if (guarded == null && invocation.getThis() != null) {
      Method specific = ClassUtils.getMostSpecificMethod(method, invocation.getThis().getClass());
      guarded = AnnotatedElementUtils.findMergedAnnotation(specific, InboxGuarded.class);
    }
    if (guarded == null) {
      return invocation.proceed();
    }
    IncomingMessage message = readers.read(invocation.getArguments());
    if (message == null) {
      throw new InvalidInputException(
          "@InboxGuarded method "
              + method.getDeclaringClass().getSimpleName()
              + "."
              + method.getName()
              + " has no argument to read the message id from: take the broker's message"
              + " (org.springframework.amqp.core.Message, ConsumerRecord, io.nats.client.Message)"
              + " as a parameter");
    }
    Object[] result = new Object[1];
    inbox
        .getObject()
        .handle(
            guarded.value(),
            message,
            (tx, incoming) -> {
              try {
                result[0] = invocation.proceed();
              } catch (Exception | Error e) {
                throw e;
              } catch (Throwable t) {
                throw new IllegalStateException(t);
              }
            });
    return result[0];
  }
}
