package dev.relayer.it.chaos;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The parameters of a chaos run, from system properties (so that {@code mvn ... -Dname=value}
 * reaches them through failsafe):
 *
 * <ul>
 *   <li>{@code relayer.chaos.duration}: how long faults are injected, ISO-8601; default {@code
 *       PT60S} (the short run of {@code mvn verify}, two to three minutes with start-up and drain)
 *   <li>{@code relayer.chaos.drainTimeout}: how long, after the last fault, everything may take to
 *       be delivered; default {@code PT3M}
 *   <li>{@code relayer.chaos.dispatchers}, {@code relayer.chaos.producers}: child JVMs of each
 *       kind; default 3 and 2
 *   <li>{@code relayer.chaos.producerPause}: pause between a producer's transactions; default
 *       {@code PT0.05S}
 *   <li>{@code relayer.chaos.poison}: whether poison messages are planted; default {@code true}
 *   <li>{@code relayer.chaos.seed}: seed of the fault schedule; default random (the report prints
 *       it, to replay a schedule)
 * </ul>
 */
record ChaosSettings(
    Duration duration,
    Duration drainTimeout,
    int dispatchers,
    int producers,
    Duration producerPause,
    boolean poison,
    long seed) {

  static ChaosSettings fromSystemProperties() {
    return new ChaosSettings(
        Duration.parse(System.getProperty("relayer.chaos.duration", "PT60S")),
        Duration.parse(System.getProperty("relayer.chaos.drainTimeout", "PT3M")),
        Integer.parseInt(System.getProperty("relayer.chaos.dispatchers", "3")),
        Integer.parseInt(System.getProperty("relayer.chaos.producers", "2")),
        Duration.parse(System.getProperty("relayer.chaos.producerPause", "PT0.05S")),
        Boolean.parseBoolean(System.getProperty("relayer.chaos.poison", "true")),
        Long.parseLong(
            System.getProperty(
                "relayer.chaos.seed", Long.toString(ThreadLocalRandom.current().nextLong()))));
  }
}
