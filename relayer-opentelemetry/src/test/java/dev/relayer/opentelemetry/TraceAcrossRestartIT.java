package dev.relayer.opentelemetry;

import static dev.relayer.opentelemetry.TestTracing.MESSAGE_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.Relayer;
import dev.relayer.transport.memory.InMemoryTransport;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One trace from the writer's span to the send span, with a process restart in between: a child JVM
 * enqueues under its span and exits; this JVM, with its own SDK, sends the row and its send span is
 * the child of the writer's span.
 */
class TraceAcrossRestartIT {

  static final Pattern IDS = Pattern.compile("trace=([0-9a-f]{32}) span=([0-9a-f]{16})");

  final OutboxDatabase db = new OutboxDatabase();
  final TestTracing otel = new TestTracing();

  @AfterEach
  void close() {
    otel.close();
    db.close();
  }

  /** Runs the writer in its own JVM to its end; returns its output. */
  private String runWriterProcess() throws Exception {
    Path output = Files.createTempFile("writer", ".log");
    try {
      Process writer =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  EnqueueUnderSpanProcess.class.getName(),
                  db.database.jdbcUrl(),
                  db.database.user(),
                  db.database.password() == null ? "-" : db.database.password())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!writer.waitFor(60, TimeUnit.SECONDS)) {
        writer.destroyForcibly();
        throw new AssertionError("the writer process did not exit within 60 s");
      }
      String log = Files.readString(output, StandardCharsets.UTF_8);
      assertThat(writer.exitValue()).as("writer exit code; its output:%n%s", log).isZero();
      return log;
    } finally {
      Files.deleteIfExists(output);
    }
  }

  @Test
  void theSendSpanAfterARestartIsTheChildOfTheWritersSpanInAnotherProcess() throws Exception {
    String log = runWriterProcess();
    Matcher ids = IDS.matcher(log);
    assertThat(ids.find()).as("the writer printed its ids; its output:%n%s", log).isTrue();
    String writerTrace = ids.group(1);
    String writerSpan = ids.group(2);
    assertThat(db.dsl.fetchCount(db.dsl.selectFrom("public.relayer_outbox")))
        .as("the message waits in the outbox after the writer exited")
        .isEqualTo(1);

    InMemoryTransport memory = InMemoryTransport.named("memory");
    RelayerTracing tracing = RelayerTracing.create(otel.sdk);
    try (Relayer relayer =
        Relayer.builder(db.database.dataSource())
            .transport(tracing.transport(memory))
            .maintenance(
                MaintenanceOptions.builder()
                    .recoveryDelay(Duration.ZERO)
                    .sweepInterval(Duration.ofMillis(50))
                    .shutdownTimeout(Duration.ofSeconds(5))
                    .build())
            .withoutLanes()
            .build()) {
      relayer.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> memory.deliveries().size() == 1);
    }

    List<SpanData> sends =
        otel.spans().stream().filter(s -> s.getKind() == SpanKind.PRODUCER).toList();
    assertThat(sends).hasSize(1);
    SpanData send = sends.get(0);
    assertThat(send.getTraceId()).isEqualTo(writerTrace);
    assertThat(send.getParentSpanId()).isEqualTo(writerSpan);
    assertThat(send.getParentSpanContext().isRemote()).isTrue();
    assertThat(send.getAttributes().get(MESSAGE_ID))
        .isEqualTo(memory.deliveries().get(0).message().messageId().toString());
    assertThat(memory.deliveries().get(0).message().headers().get("traceparent"))
        .as("the broker gets the send span's context")
        .isEqualTo("00-" + writerTrace + "-" + send.getSpanId() + "-01");
  }
}
