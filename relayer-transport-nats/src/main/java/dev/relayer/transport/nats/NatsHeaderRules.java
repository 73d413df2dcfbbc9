package dev.relayer.transport.nats;

import dev.relayer.api.spi.OutgoingMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What NATS headers cannot carry, checked before publishing so that such a message is rejected on
 * its own with an error naming the field. The rules are the client's: a header name is printable
 * US-ASCII (33 to 126) without {@code :}; a value is US-ASCII without CR or LF. The message type
 * travels as the value of {@value NatsTransport#MESSAGE_TYPE_HEADER} and the tenant as the value of
 * {@value NatsTransport#TENANT_ID_HEADER}, so both follow the value rules. Relayer refuses such
 * text rather than encode it: a consumer would have to know to decode it, and an encoding chosen
 * here would differ from what other NATS producers send.
 */
final class NatsHeaderRules {

  private NatsHeaderRules() {}

  /** One sentence per field of {@code message} that NATS headers cannot carry; empty if none. */
  static List<String> problems(OutgoingMessage message) {
    List<String> problems = new ArrayList<>(0);
    String typeProblem = valueProblem(message.messageType());
    if (typeProblem != null) {
      problems.add(
          "messageType cannot travel in the NATS header "
              + NatsTransport.MESSAGE_TYPE_HEADER
              + ": "
              + typeProblem);
    }
    String tenantId = message.tenantId();
    String tenantProblem = tenantId == null ? null : valueProblem(tenantId);
    if (tenantProblem != null) {
      problems.add(
          "tenantId cannot travel in the NATS header "
              + NatsTransport.TENANT_ID_HEADER
              + ": "
              + tenantProblem);
    }
    for (Map.Entry<String, String> header : message.headers().entrySet()) {
      String name = header.getKey();
      if (name.equals(NatsTransport.MESSAGE_TYPE_HEADER)
          || name.equals(NatsTransport.MESSAGE_ID_HEADER)
          || name.equals(NatsTransport.TENANT_ID_HEADER)) {
        continue; // replaced by the transport
      }
      String nameProblem = nameProblem(name);
      if (nameProblem != null) {
        problems.add("header '" + NatsSubject.abbreviate(name) + "': its name " + nameProblem);
      }
      String valueProblem = valueProblem(header.getValue());
      if (valueProblem != null) {
        problems.add("header '" + NatsSubject.abbreviate(name) + "': its value " + valueProblem);
      }
    }
    return problems;
  }

  private static @Nullable String nameProblem(String name) {
    if (name.isEmpty()) {
      return "is empty";
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < 33 || c > 126 || c == ':') {
        return "has "
            + describe(c)
            + " at index "
            + i
            + "; NATS header names are printable US-ASCII without ':'";
      }
    }
    return null;
  }

  private static @Nullable String valueProblem(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c > 127 || c == '\r' || c == '\n') {
        return "has "
            + describe(c)
            + " at index "
            + i
            + "; NATS header values are US-ASCII without CR or LF";
      }
    }
    return null;
  }

  private static String describe(char c) {
    String code = String.format("U+%04X", (int) c);
    return c >= 32 && c != 127 && !Character.isISOControl(c) ? "'" + c + "' (" + code + ")" : code;
  }
}
