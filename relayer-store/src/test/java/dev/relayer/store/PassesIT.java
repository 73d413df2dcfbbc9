package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.ops.StoreOperations;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.ClaimPage;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.CleanupPass;
import dev.relayer.store.pass.Completion;
import dev.relayer.store.pass.FailedSend;
import dev.relayer.store.pass.LaneClaim;
import dev.relayer.store.pass.LanePass;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.store.pass.PurgeBatch;
import dev.relayer.store.pass.SweepPass;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pass types keep their protocol's order on a real server: a step without the lease or after
 * the lease's renewal is refused, a lane pass works only in the lanes it holds, and a locked page's
 * completion stamps the rows it did not send before the writes that the token fences.
 */
class PassesIT {
  private static final Duration MINUTE = Duration.ofMinutes(1);

  StoreFixture fx;

  Passes passes;

  @BeforeEach
  void setUp() {
    fx = new StoreFixture(SchemaOptions.of("passes", "ps_"));
    passes = Passes.of(fx.store);
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  @Test
  void aSweepPassWhoseStartDidNotTakeTheLeaseRefusesEveryStep() {
    fx.dsl.transaction(
        tx -> passes.leases().tryAcquire(tx.dsl(), new LeaseRequest("sweeper", "a", MINUTE)));
    fx.store.enqueue(fx.dsl, StoreFixture.unordered(2));

    fx.dsl.transaction(
        tx -> {
          SweepPass pass = passes.sweep(tx.dsl(), new LeaseRequest("sweeper", "b", MINUTE));
          assertThat(pass.lease()).isInstanceOf(LeaseOutcome.HeldByOther.class);
          assertThatThrownBy(() -> pass.lockPage(page()))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage(
                  "sweep pass: lockPage without the lease: the pass's start did not acquire it");
          assertThatThrownBy(() -> pass.bounds(0)).isInstanceOf(IllegalStateException.class);
          assertThatThrownBy(
                  () -> pass.claimAlone(new ClaimByIds(List.of(1L), Instant.now(), MINUTE)))
              .isInstanceOf(IllegalStateException.class);
          Claim.Locked none =
              new Claim.Locked(java.util.UUID.randomUUID(), Instant.now(), List.of());
          assertThatThrownBy(() -> pass.stamp(none, List.of()))
              .isInstanceOf(IllegalStateException.class);
          assertThatThrownBy(
                  () ->
                      pass.complete(
                          none, new Completion(List.of(), List.of(), List.of(), Instant.now())))
              .isInstanceOf(IllegalStateException.class);
          assertThatThrownBy(() -> pass.markInFlight(none.token(), List.of()))
              .isInstanceOf(IllegalStateException.class);
          assertThatThrownBy(pass::end).isInstanceOf(IllegalStateException.class);
        });
    assertThat(claimedRows()).isZero();
  }

  @Test
  void aSweepPassTakesNoStepAfterItRenewedItsLease() {
    fx.store.enqueue(fx.dsl, StoreFixture.unordered(2));

    fx.dsl.transaction(
        tx -> {
          SweepPass pass = passes.sweep(tx.dsl(), new LeaseRequest("sweeper", "a", MINUTE));
          assertThat(pass.lease().acquired()).isTrue();
          pass.end();
          assertThatThrownBy(() -> pass.lockPage(page()))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage(
                  "sweep pass: lockPage after the pass ended: renewing the lease is its last step");
        });
  }

  @Test
  void aLockedPageCompletionStampsTheRowsNotSentBeforeTheWritesTheTokenFences() {
    List<Long> ids = fx.store.enqueue(fx.dsl, StoreFixture.unordered(3));
    Instant at = Instant.now();

    Completion.Written written =
        fx.dsl.transactionResult(
            tx -> {
              SweepPass pass = passes.sweep(tx.dsl(), new LeaseRequest("sweeper", "a", MINUTE));
              Claim.Locked page = pass.lockPage(page());
              assertThat(page.messages()).extracting(ClaimedMessage::id).isEqualTo(ids);
              Completion.Written w =
                  pass.complete(
                      page,
                      new Completion(
                          List.of(ids.get(0)),
                          List.of(new FailedSend(ids.get(1), "later", at.plusSeconds(3600))),
                          List.of(new Completion.Burial(page.messages().get(2), "rejected", "no")),
                          at));
              pass.end();
              return w;
            });

    assertThat(written.deleted()).isEqualTo(1);
    assertThat(written.dead()).extracting(b -> b.message().id()).containsExactly(ids.get(2));
    assertThat(written.parked()).isEmpty();
    Record retried =
        fx.dsl.fetchOne(
            "SELECT last_error, claim_token IS NOT NULL AS stamped, attempts FROM "
                + fx.store.names().qualified(SchemaNames.OUTBOX)
                + " WHERE id = "
                + ids.get(1));
    assertThat(retried.get("last_error", String.class)).isEqualTo("later");
    assertThat(retried.get("stamped", Boolean.class)).isTrue();
    assertThat(retried.get("attempts", Integer.class)).isEqualTo(1);
    assertThat(fx.dsl.fetchCount(fx.dsl.selectFrom(table(SchemaNames.OUTBOX)))).isEqualTo(1);
    assertThat(HealthReads.of(fx.store).deadCount(fx.dsl)).isEqualTo(1);
  }

  @Test
  void aLanePassRefusesToClaimInALaneWhoseLeaseAnotherOwnerHolds() {
    fx.dsl.transaction(
        tx -> passes.leases().tryAcquire(tx.dsl(), new LeaseRequest("lane/1", "a", MINUTE)));

    fx.dsl.transaction(
        tx -> {
          LanePass pass =
              passes.lanes(
                  tx.dsl(), List.of(0, 1), l -> new LeaseRequest("lane/" + l, "b", MINUTE));
          assertThat(pass.leases()).extracting(LeaseOutcome::acquired).containsExactly(true, false);
          assertThatThrownBy(
                  () ->
                      pass.claim(
                          new LaneClaim(Set.of(0, 1), 10, 0, Set.of(), Instant.now(), MINUTE)))
              .isInstanceOf(InvalidInputException.class)
              .hasMessageContaining("lane 1 is not one whose lease this pass holds");
          assertThat(
                  pass.claim(new LaneClaim(Set.of(0), 10, 0, Set.of(), Instant.now(), MINUTE))
                      .isEmpty())
              .isTrue();
        });
  }

  @Test
  void aLanePassTakesNoStepAfterItRenewedItsLeases() {
    fx.dsl.transaction(
        tx -> {
          LanePass pass =
              passes.lanes(tx.dsl(), List.of(0), l -> new LeaseRequest("lane/" + l, "a", MINUTE));
          pass.end(Set.of(0), Instant.now());
          assertThatThrownBy(
                  () ->
                      pass.claim(new LaneClaim(Set.of(0), 10, 0, Set.of(), Instant.now(), MINUTE)))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage(
                  "lane pass: claim after the pass ended: renewing the lease is its last step");
          assertThatThrownBy(pass::end).isInstanceOf(IllegalStateException.class);
        });
  }

  @Test
  void aCleanupBatchWhoseStartDidNotTakeTheLeaseIsRefused() {
    fx.dsl.transaction(
        tx -> passes.leases().tryAcquire(tx.dsl(), new LeaseRequest("cleanup", "a", MINUTE)));

    fx.dsl.transaction(
        tx -> {
          CleanupPass pass = passes.cleanup(tx.dsl(), new LeaseRequest("cleanup", "b", MINUTE));
          assertThat(pass.lease()).hasValueSatisfying(l -> assertThat(l.acquired()).isFalse());
          assertThatThrownBy(() -> pass.purgeDead(PurgeBatch.first(Instant.now(), 10)))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage(
                  "cleanup pass: purgeDead without the lease: the pass's start did not acquire it");
        });
  }

  @Test
  void aLanePassCompletionParksAnOrderedHeadThatIsNotToBeRetried() {
    String key = "key-a";
    int lane = Lanes.laneOf(key, fx.store.options().laneCount());
    long head = fx.store.enqueue(fx.dsl, StoreFixture.ordered(key));
    fx.store.enqueue(fx.dsl, StoreFixture.ordered(key));

    Completion.Written written =
        fx.dsl.transactionResult(
            tx -> {
              LanePass pass =
                  passes.lanes(
                      tx.dsl(), List.of(lane), l -> new LeaseRequest("lane/" + l, "a", MINUTE));
              Claim.Stamped heads =
                  pass.claim(new LaneClaim(Set.of(lane), 10, 0, Set.of(), Instant.now(), MINUTE));
              Completion.Written w =
                  pass.complete(
                      heads,
                      new Completion(
                          List.of(),
                          List.of(),
                          List.of(new Completion.Burial(heads.messages().get(0), "rejected", "no")),
                          Instant.now()));
              pass.end(Set.of(lane), Instant.now());
              return w;
            });

    assertThat(written.parked()).extracting(b -> b.message().id()).containsExactly(head);
    assertThat(StoreOperations.of(fx.store).parkedKey(fx.dsl, key)).isPresent();
  }

  @Test
  void aDirectClaimAndItsCompletionCarryTheirFlushSettingInTheirOwnStatements() {
    List<Long> ids = fx.store.enqueue(fx.dsl, StoreFixture.unordered(3));
    Instant at = Instant.now();

    // Each transaction first sets the opposite of what its statements must leave.
    Claim.Stamped claim =
        fx.dsl.transactionResult(
            tx -> {
              synchronousCommit(tx.dsl(), "off");
              List<Claim.Stamped> c = new ArrayList<>();
              assertThat(
                      statementsRun(
                          tx.dsl(),
                          d -> c.add(passes.direct(d).claimByIds(new ClaimByIds(ids, at, MINUTE)))))
                  .as("statements of the claim")
                  .isOne();
              assertThat(synchronousCommit(tx.dsl())).as("after the claim").isEqualTo("on");
              return c.get(0);
            });
    assertThat(claim.messages()).hasSize(3);

    Completion sentOneOfTwo =
        new Completion(
            List.of(ids.get(0)),
            List.of(new FailedSend(ids.get(1), "later", at.plusSeconds(60))),
            List.of(),
            at);
    assertThat(completeInTwoStatementsLeavingNoFlushWait(claim, sentOneOfTwo, "a send").deleted())
        .isEqualTo(1);

    Completion sentNothing =
        new Completion(
            List.of(),
            List.of(new FailedSend(ids.get(2), "later", at.plusSeconds(60))),
            List.of(),
            at);
    // The setting in a statement of its own, then the failure.
    assertThat(completeInTwoStatementsLeavingNoFlushWait(claim, sentNothing, "no send").deleted())
        .isZero();
    assertThat(claimedRows()).isEqualTo(2);
  }

  /**
   * Completes {@code claim} with {@code outcome} by direct dispatch in a transaction that first
   * sets {@code synchronous_commit = on}, asserts that the completion ran two statements and left
   * the setting {@code off}, and returns what it wrote.
   */
  private Completion.Written completeInTwoStatementsLeavingNoFlushWait(
      Claim.Stamped claim, Completion outcome, String with) {
    return fx.dsl.transactionResult(
        tx -> {
          synchronousCommit(tx.dsl(), "on");
          List<Completion.Written> written = new ArrayList<>();
          assertThat(
                  statementsRun(
                      tx.dsl(), d -> written.add(passes.direct(d).complete(claim, outcome))))
              .as("statements of a completion with " + with)
              .isEqualTo(2);
          assertThat(synchronousCommit(tx.dsl()))
              .as("after a completion with " + with)
              .isEqualTo("off");
          return written.get(0);
        });
  }

  private static ClaimPage page() {
    Instant now = Instant.now();
    return new ClaimPage(0, Long.MAX_VALUE, now.plusSeconds(1), 10, now, MINUTE);
  }

  /** How many statements {@code work} prepared on the connection of {@code tx}. */
  private static int statementsRun(DSLContext tx, Consumer<DSLContext> work) {
    AtomicInteger prepared = new AtomicInteger();
    tx.connection(
        connection -> {
          Connection counting =
              (Connection)
                  Proxy.newProxyInstance(
                      Connection.class.getClassLoader(),
                      new Class<?>[] {Connection.class},
                      (proxy, method, args) -> {
                        if (method.getName().startsWith("prepare")
                            || method.getName().equals("createStatement")) {
                          prepared.incrementAndGet();
                        }
                        try {
                          return method.invoke(connection, args);
                        } catch (InvocationTargetException e) {
                          throw e.getCause();
                        }
                      });
          work.accept(DSL.using(counting, tx.dialect()));
        });
    return prepared.get();
  }

  private static void synchronousCommit(DSLContext tx, String value) {
    tx.execute("set local synchronous_commit = " + value);
  }

  private static String synchronousCommit(DSLContext tx) {
    return tx.fetchValue(DSL.field("current_setting('synchronous_commit')", String.class));
  }

  private long claimedRows() {
    return fx.dsl.fetchCount(
        fx.dsl.selectFrom(table(SchemaNames.OUTBOX)).where("claim_token IS NOT NULL"));
  }

  private org.jooq.Table<?> table(String base) {
    return org.jooq.impl.DSL.table(fx.store.names().qualified(base));
  }
}
