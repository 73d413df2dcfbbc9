package dev.relayer.dispatch.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The process's send gate, with real threads: a row sent alone waits for every transport call in
 * flight and keeps new ones waiting until it is done.
 */
class SendGateTest {

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  @Test
  void aSendAloneWaitsForTheCallsInFlightAndHoldsNewOnesOff() throws Exception {
    CompletableFuture<Void> releaseCall = new CompletableFuture<>();
    CompletableFuture<Void> callHeld = new CompletableFuture<>();
    Future<?> call =
        threads.submit(
            () -> {
              try (SendGate.Hold gate = SendGate.PROCESS.shared()) {
                callHeld.complete(null);
                releaseCall.join();
              }
            });
    callHeld.get(5, TimeUnit.SECONDS);

    CompletableFuture<Void> aloneHeld = new CompletableFuture<>();
    CompletableFuture<Void> releaseAlone = new CompletableFuture<>();
    Future<?> alone =
        threads.submit(
            () -> {
              try (SendGate.Hold gate = SendGate.PROCESS.alone()) {
                // The thread that sends alone makes its own transport call.
                try (SendGate.Hold own = SendGate.PROCESS.shared()) {
                  aloneHeld.complete(null);
                }
                releaseAlone.join();
              }
              return null;
            });
    Thread.sleep(200);
    assertThat(aloneHeld).as("alone while a call is in flight").isNotDone();

    releaseCall.complete(null);
    call.get(5, TimeUnit.SECONDS);
    aloneHeld.get(5, TimeUnit.SECONDS);

    CompletableFuture<Void> laterCall = new CompletableFuture<>();
    Future<?> later =
        threads.submit(
            () -> {
              try (SendGate.Hold gate = SendGate.PROCESS.shared()) {
                laterCall.complete(null);
              }
            });
    Thread.sleep(200);
    assertThat(laterCall).as("a call while a row is sent alone").isNotDone();

    releaseAlone.complete(null);
    alone.get(5, TimeUnit.SECONDS);
    later.get(5, TimeUnit.SECONDS);
    assertThat(laterCall).isDone();
  }
}
