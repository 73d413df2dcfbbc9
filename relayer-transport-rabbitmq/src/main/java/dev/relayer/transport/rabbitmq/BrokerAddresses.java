package dev.relayer.transport.rabbitmq;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.AddressResolver;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The brokers a transport connects to, {@code host[:port]} each ({@code [host]:port} for an IPv6
 * literal), tried in the order given: the first one that accepts the connection and the AMQP
 * handshake wins, and automatic recovery walks the same list in the same order. An entry without a
 * port takes the client's default (5672, or 5671 with TLS).
 */
final class BrokerAddresses implements AddressResolver {

  private final List<Address> addresses;

  private BrokerAddresses(List<Address> addresses) {
    this.addresses = List.copyOf(addresses);
  }

  /** The single address a URI or a connection factory names. */
  static BrokerAddresses of(String host, int port) {
    return new BrokerAddresses(List.of(new Address(host, port)));
  }

  /**
   * {@code entries} parsed, or {@code null} when one is bad; each bad entry adds a problem that
   * starts with {@code addresses} and quotes the entry.
   */
  static @Nullable BrokerAddresses parse(List<String> entries, List<String> problems) {
    if (entries.isEmpty()) {
      problems.add("addresses must not be empty when given");
      return null;
    }
    List<Address> parsed = new ArrayList<>(entries.size());
    boolean bad = false;
    for (String entry : entries) {
      @Nullable Address address = parse(entry, problems);
      if (address == null) {
        bad = true;
      } else {
        parsed.add(address);
      }
    }
    return bad ? null : new BrokerAddresses(parsed);
  }

  private static @Nullable Address parse(@Nullable String entry, List<String> problems) {
    String text = entry == null ? "" : entry.trim();
    if (text.isEmpty()) {
      problems.add("addresses: an entry is blank; each is host[:port]");
      return null;
    }
    if (text.contains("/") || text.contains("@")) {
      problems.add(
          "addresses: '"
              + text
              + "' is not host[:port]; the scheme, user and virtual host belong in the uri");
      return null;
    }
    String host;
    @Nullable String port;
    if (text.startsWith("[")) {
      int close = text.indexOf(']');
      if (close < 0) {
        problems.add("addresses: '" + text + "' opens an IPv6 literal with [ but never closes it");
        return null;
      }
      host = text.substring(1, close);
      String rest = text.substring(close + 1);
      if (!rest.isEmpty() && !rest.startsWith(":")) {
        problems.add(
            "addresses: '" + text + "' has '" + rest + "' after the host; write [host]:port");
        return null;
      }
      port = rest.isEmpty() ? null : rest.substring(1);
    } else {
      int colon = text.indexOf(':');
      if (colon >= 0 && text.indexOf(':', colon + 1) >= 0) {
        problems.add(
            "addresses: '" + text + "' has several colons; write an IPv6 host as [host]:port");
        return null;
      }
      host = colon < 0 ? text : text.substring(0, colon);
      port = colon < 0 ? null : text.substring(colon + 1);
    }
    if (host.isEmpty() || !host.chars().allMatch(BrokerAddresses::isHostCharacter)) {
      problems.add("addresses: '" + text + "' has no valid host; each entry is host[:port]");
      return null;
    }
    if (port == null) {
      return new Address(host);
    }
    boolean digits =
        !port.isEmpty() && port.length() <= 5 && port.chars().allMatch(Character::isDigit);
    int number = digits ? Integer.parseInt(port) : -1;
    if (number < 1 || number > 65_535) {
      problems.add("addresses: '" + text + "' has port '" + port + "'; a port is 1 to 65535");
      return null;
    }
    return new Address(host, number);
  }

  /** Letters, digits and the punctuation of host names and IP literals: {@code - . _ : %}. */
  private static boolean isHostCharacter(int c) {
    return Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_' || c == ':' || c == '%';
  }

  int size() {
    return addresses.size();
  }

  List<Address> list() {
    return addresses;
  }

  @Override
  public List<Address> getAddresses() {
    return addresses;
  }

  /**
   * The list as given. The client's default shuffles it, for the first connection too when
   * automatic recovery is on, which would make an address listed first for being nearer, or the
   * primary, no more likely to be used than any other.
   */
  @Override
  public List<Address> maybeShuffle(List<Address> input) {
    return input;
  }

  /** {@code host:port,host:port}, for messages; an entry without a port shows the host alone. */
  @Override
  public String toString() {
    return addresses.stream()
        .map(
            address -> {
              String host =
                  address.getHost().indexOf(':') >= 0
                      ? "[" + address.getHost() + "]"
                      : address.getHost();
              return address.getPort() > 0 ? host + ":" + address.getPort() : host;
            })
        .collect(Collectors.joining(","));
  }
}
