package dev.relayer.testkit.transport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A fresh RSA key and a self-signed certificate for {@code 127.0.0.1} (subject alternative name
 * {@code IP:127.0.0.1}, valid two days), made by the JDK's {@code keytool} in a directory of the
 * caller's: what a TLS listener of a test presents, and what a client must be given to trust it. No
 * default trust store trusts it, so a client without {@link #certificate()} or {@link
 * #truststore()} fails the handshake.
 */
public final class SelfSignedCertificate {

  /** The password of {@link #keystore()}, of its key and of {@link #truststore()}. */
  public static final String PASSWORD = "relayer-test";

  private final Path dir;

  private SelfSignedCertificate(Path dir) {
    this.dir = dir;
  }

  /** Makes the key, the certificate and both stores in {@code dir}. */
  public static SelfSignedCertificate create(Path dir) throws IOException, InterruptedException {
    SelfSignedCertificate certificate = new SelfSignedCertificate(dir);
    certificate.make();
    return certificate;
  }

  /** A PKCS#12 key store with the key and the certificate (alias {@code server}). */
  public Path keystore() {
    return dir.resolve("server.p12");
  }

  /** The certificate, PEM. */
  public Path certificate() {
    return dir.resolve("server.pem");
  }

  /** A PKCS#12 trust store holding only {@link #certificate()}. */
  public Path truststore() {
    return dir.resolve("truststore.p12");
  }

  /** A server-side TLS context presenting the certificate. */
  public SSLContext serverContext() throws IOException, GeneralSecurityException {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore())) {
      keys.load(in, PASSWORD.toCharArray());
    }
    KeyManagerFactory managers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    managers.init(keys, PASSWORD.toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(managers.getKeyManagers(), null, null);
    return context;
  }

  private void make() throws IOException, InterruptedException {
    keytool(
        "-genkeypair",
        "-alias",
        "server",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "2",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=IP:127.0.0.1",
        "-storetype",
        "PKCS12",
        "-keystore",
        keystore().toString(),
        "-storepass",
        PASSWORD,
        "-keypass",
        PASSWORD);
    keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        "server",
        "-keystore",
        keystore().toString(),
        "-storepass",
        PASSWORD,
        "-file",
        certificate().toString());
    keytool(
        "-importcert",
        "-noprompt",
        "-alias",
        "server",
        "-file",
        certificate().toString(),
        "-storetype",
        "PKCS12",
        "-keystore",
        truststore().toString(),
        "-storepass",
        PASSWORD);
  }

  private void keytool(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(arguments));
    Path log = dir.resolve("keytool.log");
    Process keytool =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    if (!keytool.waitFor(60, TimeUnit.SECONDS)) {
      keytool.destroyForcibly();
      throw new IllegalStateException("keytool " + arguments[0] + " took over 60 s");
    }
    if (keytool.exitValue() != 0) {
      throw new IllegalStateException(
          "keytool " + arguments[0] + " failed (exit " + keytool.exitValue() + "); see " + log);
    }
  }
}
