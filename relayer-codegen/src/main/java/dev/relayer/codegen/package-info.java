/**
 * The database that {@code relayer-jooq-generated}'s build generates its jOOQ classes from. The
 * generator itself is jooq-codegen-maven, configured in that module's pom; this package provides
 * the database before it runs and removes it afterwards. It lives in a module of its own so that
 * the test kit users put on their test class path carries no build tooling.
 *
 * <h2>Provide, generate, remove</h2>
 *
 * <p>Maven runs each {@code exec:java} step in a class loader of its own and closes it afterwards,
 * so nothing the provide step holds in memory survives until the remove step. The database is
 * therefore owned by a separate JVM, the keeper, for its whole life:
 *
 * <ol>
 *   <li><b>provide</b> ({@code initialize}): {@link dev.relayer.codegen.DatabaseKeeper} starts the
 *       keeper JVM as a child of the build's JVM and waits until the keeper's file exists. The
 *       keeper finds a server ({@code RELAYER_PG_URL}, else Testcontainers, else an embedded
 *       PostgreSQL), creates a fresh database with the changelog applied ({@link
 *       dev.relayer.codegen.CodegenDatabase}), and writes the file, atomically: JDBC URL, user,
 *       password, its process id and a loopback port. Its output goes to a {@code .log} file next
 *       to it.
 *   <li>properties-maven-plugin reads the file into project properties ({@code initialize}).
 *   <li><b>generate</b> ({@code generate-sources}): jooq-codegen-maven connects with them.
 *   <li><b>remove</b> ({@code process-sources}): connects to the keeper's port. The keeper drops
 *       the database, stops a server it started, deletes the file, and only then answers and exits.
 * </ol>
 *
 * <p>Only the keeper writes the database and the file; provide deletes a stale file (from a keeper
 * that was killed) before it starts one. On failure:
 *
 * <ul>
 *   <li>the keeper fails before the file exists: provide fails the build with the keeper's output;
 *   <li>the build ends before remove (generation failed, a build stopped before {@code
 *       process-sources}, the build's JVM was killed): the keeper sees its parent end and cleans up
 *       as for a remove;
 *   <li>the keeper dies or cannot drop the database: remove fails the build with its output. A
 *       server it started stops with its JVM (the test kit's shutdown hook, Testcontainers'
 *       reaper).
 * </ul>
 */
package dev.relayer.codegen;
