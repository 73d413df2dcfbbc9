package dev.relayer.it.chaos;

import dev.relayer.dispatch.RelayerLanes;
import dev.relayer.dispatch.RelayerMaintenance;

/**
 * A dispatcher instance of the chaos run: direct dispatch, maintenance (sweeper and cleanup) and
 * the ordered lanes, on the run's database and broker, until it is killed or stopped. Arguments:
 * {@code jdbcUrl=... amqpUri=... destination=... name=...}.
 */
public final class DispatcherMain {

  private DispatcherMain() {}

  public static void main(String[] argv) throws Exception {
    ChaosNode node = ChaosNode.fromArgs(argv, 8);
    RelayerMaintenance maintenance =
        RelayerMaintenance.create(
            node.dispatcher,
            ChaosNode.maintenanceOptions(),
            node.name() + "/" + ProcessHandle.current().pid());
    RelayerLanes lanes =
        RelayerLanes.builder(node.dispatcher)
            .owner(node.name() + "/" + ProcessHandle.current().pid())
            .options(ChaosNode.laneOptions())
            .build();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  lanes.close();
                  maintenance.close();
                  node.close();
                },
                "chaos-dispatcher-shutdown"));
    ChaosNode.startRetrying(node.dispatcher::start);
    ChaosNode.startRetrying(maintenance::start);
    ChaosNode.startRetrying(lanes::start);
    System.out.println("started");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
