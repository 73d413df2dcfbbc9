package dev.relayer.bench.pipeline;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap high-water mark of a measurement: the largest heap occupancy left after a garbage
 * collection (the live set, not garbage waiting to be collected), from the JVM's GC notifications.
 * Starts with a full collection so that earlier work does not count.
 */
public final class HeapWatcher implements AutoCloseable {

  private final Set<String> heapPools =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP)
          .map(MemoryPoolMXBean::getName)
          .collect(Collectors.toSet());
  private final AtomicLong maxAfterGc = new AtomicLong();
  private final AtomicInteger collections = new AtomicInteger();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final NotificationListener listener = this::onNotification;

  private HeapWatcher() {}

  /** Collects garbage, then starts watching. */
  public static HeapWatcher start() {
    System.gc();
    HeapWatcher watcher = new HeapWatcher();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(watcher.listener, null, null);
        watcher.emitters.add(emitter);
      }
    }
    return watcher;
  }

  /** Largest heap occupancy after a collection seen so far, in MiB (0 if none happened). */
  public double maxAfterGcMiB() {
    return maxAfterGc.get() / (1024.0 * 1024.0);
  }

  /**
   * Collects garbage now (while the system under test is still running, so its live data counts)
   * and returns the largest heap occupancy after a collection, this one included, in MiB.
   */
  public double finish() {
    System.gc();
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    maxAfterGc.accumulateAndGet(used, Math::max);
    return maxAfterGcMiB();
  }

  /** Collections seen so far. */
  public int collections() {
    return collections.get();
  }

  @Override
  public void close() {
    for (NotificationEmitter emitter : emitters) {
      try {
        emitter.removeNotificationListener(listener);
      } catch (ListenerNotFoundException e) {
        // already gone
      }
    }
  }

  private void onNotification(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
        notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool :
        info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    collections.incrementAndGet();
    maxAfterGc.accumulateAndGet(used, Math::max);
  }
}
