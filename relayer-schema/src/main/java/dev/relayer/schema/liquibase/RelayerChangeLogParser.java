package dev.relayer.schema.liquibase;

import java.util.List;
import liquibase.changelog.ChangeLogParameters;
import liquibase.changelog.DatabaseChangeLog;
import liquibase.exception.ChangeLogParseException;
import liquibase.parser.core.xml.XMLChangeLogSAXParser;
import liquibase.plugin.Plugin;
import liquibase.resource.ResourceAccessor;

/**
 * Parses Relayer's changelog ({@value #CHANGELOG}) after checking the values its parameters {@code
 * relayer.schema} and {@code relayer.prefix} were given, before Liquibase expands them.
 *
 * <p>Liquibase expands every {@code ${...}} of a changeset while it parses the changelog, and
 * expands a parameter's value again when that value holds a {@code ${...}}. A value that refers to
 * its own parameter ({@code x${relayer.schema}}), or two that refer to each other, make that
 * expansion recurse until the JVM's stack overflows, before any change is consulted. This parser,
 * found by Liquibase's service loader in Relayer's jar and preferred for Relayer's changelog only,
 * refuses a value holding <code>${</code> with the message that {@link CreateRelayerTables}'s
 * validation gives for it, and otherwise parses the changelog exactly as Liquibase's XML parser
 * does: changeset ids and checksums are the same with or without it.
 */
public final class RelayerChangeLogParser extends XMLChangeLogSAXParser {

  /** Where Relayer's changelog is, on the class path or below a search path. */
  public static final String CHANGELOG = "db/changelog/relayer/db.changelog-relayer.xml";

  /** Ahead of Liquibase's XML parser, which has the default priority. */
  @Override
  public int getPriority() {
    return Plugin.PRIORITY_SPECIALIZED;
  }

  /**
   * Only Relayer's changelog, however its path is spelled ({@code classpath:}, a leading {@code /},
   * a directory before it).
   */
  @Override
  public boolean supports(String changeLogFile, ResourceAccessor resourceAccessor) {
    if (changeLogFile == null) {
      return false;
    }
    String path = changeLogFile.replace('\\', '/');
    return (path.equals(CHANGELOG)
            || path.endsWith("/" + CHANGELOG)
            || path.endsWith(":" + CHANGELOG))
        && super.supports(changeLogFile, resourceAccessor);
  }

  @Override
  public DatabaseChangeLog parse(
      String physicalChangeLogLocation,
      ChangeLogParameters changeLogParameters,
      ResourceAccessor resourceAccessor)
      throws ChangeLogParseException {
    List<String> problems = CreateRelayerTables.placeholderProblems(changeLogParameters, null);
    if (!problems.isEmpty()) {
      throw new ChangeLogParseException(
          CreateRelayerTables.errorMessage(String.join("; ", problems)));
    }
    return super.parse(physicalChangeLogLocation, changeLogParameters, resourceAccessor);
  }
}
