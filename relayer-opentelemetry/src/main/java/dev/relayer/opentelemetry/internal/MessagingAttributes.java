package dev.relayer.opentelemetry.internal;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The attribute keys of OpenTelemetry's messaging semantic conventions that Relayer's spans carry,
 * and Relayer's own. Written out here rather than taken from the incubating semantic-conventions
 * artifact, whose constants may change in any release.
 */
public final class MessagingAttributes {

  private MessagingAttributes() {}

  public static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  public static final AttributeKey<String> DESTINATION_NAME =
      AttributeKey.stringKey("messaging.destination.name");
  public static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  public static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  public static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  public static final AttributeKey<Long> BATCH_MESSAGE_COUNT =
      AttributeKey.longKey("messaging.batch.message_count");
  public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  /** Relayer's transport name (the row's {@code transport} column). */
  public static final AttributeKey<String> RELAYER_TRANSPORT =
      AttributeKey.stringKey("relayer.transport");

  /** The inbox consumer a process span recorded the message for. */
  public static final AttributeKey<String> RELAYER_INBOX_CONSUMER =
      AttributeKey.stringKey("relayer.inbox.consumer");

  /** {@code first} or {@code duplicate}: what the inbox said about the message. */
  public static final AttributeKey<String> RELAYER_INBOX_OUTCOME =
      AttributeKey.stringKey("relayer.inbox.outcome");

  /** {@code send}: the operation of a producer span. */
  public static final String SEND = "send";

  /** {@code process}: the operation of a consumer span. */
  public static final String PROCESS = "process";
}
