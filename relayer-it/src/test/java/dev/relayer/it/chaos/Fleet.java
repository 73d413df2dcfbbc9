package dev.relayer.it.chaos;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The child JVMs of a chaos run and their supervisor: every member that dies is started again after
 * a short pause, as an orchestrator would. It tells apart, by how they ended, the processes it
 * killed itself ({@link #kill}: {@code Process.destroyForcibly()}, which is SIGKILL on Linux, exit
 * code 137), those a poison message halted (exit code {@value PoisonTransport#EXIT_CODE}) and any
 * other exit, which the run reports as unexpected. A member chosen for a kill that ends with the
 * poison exit code was already halting when the signal came: it counts as a poison halt, not a
 * kill.
 *
 * <p>Each member's stdout and stderr, over all its restarts, go to {@code <name>.log} in the run's
 * directory.
 */
final class Fleet implements AutoCloseable {

  /** What a member runs. */
  enum Role {
    DISPATCHER(DispatcherMain.class),
    PRODUCER(ProducerMain.class);

    final Class<?> main;

    Role(Class<?> main) {
      this.main = main;
    }
  }

  private static final int SIGKILL_EXIT = 137;

  private final Path logs;
  private final Random random;
  private final List<Member> members = new ArrayList<>();
  private final Map<Role, Integer> kills = new EnumMap<>(Role.class);
  private final Map<Role, Integer> poisonHalts = new EnumMap<>(Role.class);
  private final Map<Role, Integer> starts = new EnumMap<>(Role.class);
  private final List<String> unexpectedExits = new ArrayList<>();
  private final List<String> killsNotBySigkill = new ArrayList<>();
  private final Thread supervisor;
  private volatile boolean closed;
  private final Thread onExit = new Thread(this::killAll, "chaos-fleet-on-exit");

  Fleet(Path logs, Random random) {
    this.logs = logs;
    this.random = random;
    for (Role role : Role.values()) {
      kills.put(role, 0);
      poisonHalts.put(role, 0);
      starts.put(role, 0);
    }
    this.supervisor = new Thread(this::supervise, "chaos-fleet-supervisor");
    this.supervisor.setDaemon(true);
    this.supervisor.start();
    Runtime.getRuntime().addShutdownHook(onExit);
  }

  /** Adds a member and starts it; {@code args} are its {@code key=value} arguments. */
  synchronized void add(Role role, String name, List<String> args) {
    Member member = new Member(role, name, args);
    members.add(member);
    start(member);
  }

  /** Kills a random running member of {@code role} with SIGKILL; false when none runs. */
  synchronized boolean kill(Role role) {
    List<Member> running = new ArrayList<>();
    for (Member member : members) {
      if (member.role == role && member.process != null && member.process.isAlive()) {
        running.add(member);
      }
    }
    if (running.isEmpty()) {
      return false;
    }
    Member victim = running.get(random.nextInt(running.size()));
    victim.killedByUs = true;
    victim.process.destroyForcibly();
    kills.merge(role, 1, Integer::sum);
    return true;
  }

  /**
   * Stops every member of {@code role} for good: SIGTERM (their shutdown hooks close Relayer
   * gracefully), then SIGKILL after {@code 15 s}.
   */
  void stop(Role role) throws InterruptedException {
    List<Process> stopping = new ArrayList<>();
    synchronized (this) {
      for (Member member : members) {
        if (member.role == role) {
          member.stopped = true;
          if (member.process != null) {
            member.process.destroy();
            stopping.add(member.process);
          }
        }
      }
    }
    for (Process process : stopping) {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(15, TimeUnit.SECONDS);
      }
    }
  }

  synchronized int kills(Role role) {
    return kills.get(role);
  }

  synchronized int poisonHalts(Role role) {
    return poisonHalts.get(role);
  }

  synchronized int starts(Role role) {
    return starts.get(role);
  }

  synchronized List<String> unexpectedExits() {
    return List.copyOf(unexpectedExits);
  }

  synchronized List<String> killsNotBySigkill() {
    return List.copyOf(killsNotBySigkill);
  }

  private void supervise() {
    while (!closed) {
      synchronized (this) {
        long now = System.nanoTime();
        for (Member member : members) {
          if (member.process != null && !member.process.isAlive()) {
            ended(member, member.process.exitValue(), now);
          }
          if (member.process == null && !member.stopped && now - member.restartAt >= 0) {
            start(member);
          }
        }
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void ended(Member member, int exitCode, long now) {
    member.process = null;
    mark(member, "exited with " + exitCode + (member.killedByUs ? " (killed by the run)" : ""));
    long pauseMillis;
    if (member.killedByUs && exitCode == PoisonTransport.EXIT_CODE) {
      // The poison halt won the race with the signal (the JVM was already halting when it was
      // chosen): a poison halt, and no kill.
      member.killedByUs = false;
      kills.merge(member.role, -1, Integer::sum);
      poisonHalts.merge(member.role, 1, Integer::sum);
      pauseMillis = 300;
    } else if (member.killedByUs) {
      member.killedByUs = false;
      if (exitCode != SIGKILL_EXIT) {
        killsNotBySigkill.add(member.name + " exited with " + exitCode);
      }
      pauseMillis = 500L + random.nextInt(2_000);
    } else if (exitCode == PoisonTransport.EXIT_CODE) {
      poisonHalts.merge(member.role, 1, Integer::sum);
      pauseMillis = 300;
    } else if (member.stopped) {
      return;
    } else {
      unexpectedExits.add(member.name + " exited with " + exitCode);
      pauseMillis = 1_000;
    }
    member.restartAt = now + TimeUnit.MILLISECONDS.toNanos(pauseMillis);
  }

  private void start(Member member) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx256m",
            "-Dorg.slf4j.simpleLogger.showDateTime=true",
            "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
            "-cp",
            System.getProperty("java.class.path"),
            member.role.main.getName()));
    command.addAll(member.args);
    command.add("name=" + member.name);
    command.add("parentPid=" + ProcessHandle.current().pid());
    mark(member, "starting");
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    builder.environment().remove("JDK_JAVA_OPTIONS");
    builder.environment().remove("_JAVA_OPTIONS");
    builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.redirectErrorStream(true);
    builder.redirectOutput(
        ProcessBuilder.Redirect.appendTo(logs.resolve(member.name + ".log").toFile()));
    try {
      member.process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + member.name, e);
    }
    starts.merge(member.role, 1, Integer::sum);
  }

  /** A line of the supervisor's in the member's log, between two of its lives. */
  private void mark(Member member, String what) {
    try {
      Files.writeString(
          logs.resolve(member.name + ".log"),
          "=== " + Instant.now() + " " + member.name + " " + what + "\n",
          UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      Runtime.getRuntime().removeShutdownHook(onExit);
    } catch (IllegalStateException e) {
      return; // the JVM is exiting: the hook does it
    }
    closed = true;
    supervisor.interrupt();
    supervisor.join(5_000);
    killAll();
  }

  /** SIGKILLs every member and waits for them; also run if the test JVM exits mid-run. */
  private void killAll() {
    closed = true;
    List<Process> running = new ArrayList<>();
    synchronized (this) {
      for (Member member : members) {
        member.stopped = true;
        if (member.process != null) {
          member.process.destroyForcibly();
          running.add(member.process);
        }
      }
    }
    try {
      for (Process process : running) {
        process.waitFor(15, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final class Member {
    final Role role;
    final String name;
    final List<String> args;
    Process process;
    boolean killedByUs;
    boolean stopped;
    long restartAt = System.nanoTime();

    Member(Role role, String name, List<String> args) {
      this.role = role;
      this.name = name;
      this.args = List.copyOf(args);
    }
  }
}
