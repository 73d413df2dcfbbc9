package dev.relayer.it;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * What PostgreSQL's catalog says about one schema: relations, columns (type, nullability, default,
 * identity), constraints ({@code pg_get_constraintdef}), indexes ({@code pg_get_indexdef}, with
 * their predicates) and sequences. The schema's own name is replaced by {@code <schema>}, so that
 * snapshots of installs in different schemas compare equal when they have the same shape.
 * Liquibase's {@code databasechangelog*} tables are left out.
 */
record CatalogSnapshot(
    List<String> relations,
    List<String> columns,
    List<String> constraints,
    List<String> indexes,
    List<String> sequences) {

  private static final String NOT_LIQUIBASE = "c.relname NOT LIKE 'databasechangelog%'";

  static CatalogSnapshot of(Connection connection, String schema) throws SQLException {
    List<String> relations =
        Jdbc.rows(
            connection,
            "SELECT c.relname, c.relkind, c.relpersistence FROM pg_class c"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND "
                + NOT_LIQUIBASE
                + " ORDER BY c.relname",
            schema);
    List<String> columns =
        Jdbc.rows(
            connection,
            "SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod),"
                + " a.attnotnull, a.attidentity, a.attgenerated,"
                + " replace(pg_get_expr(d.adbin, d.adrelid), quote_ident(n.nspname) || '.',"
                + " '<schema>.')"
                + " FROM pg_attribute a"
                + " JOIN pg_class c ON c.oid = a.attrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                + " WHERE n.nspname = ? AND c.relkind = 'r' AND a.attnum > 0"
                + " AND NOT a.attisdropped AND "
                + NOT_LIQUIBASE
                + " ORDER BY c.relname, a.attnum",
            schema);
    List<String> constraints =
        Jdbc.rows(
            connection,
            "SELECT c.relname, k.conname, k.contype, k.convalidated, k.condeferrable,"
                + " replace(pg_get_constraintdef(k.oid), quote_ident(n.nspname) || '.',"
                + " '<schema>.')"
                + " FROM pg_constraint k"
                + " JOIN pg_class c ON c.oid = k.conrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND "
                + NOT_LIQUIBASE
                + " ORDER BY c.relname, k.conname",
            schema);
    List<String> indexes =
        Jdbc.rows(
            connection,
            "SELECT ic.relname, c.relname, i.indisunique, i.indisprimary,"
                + " replace(pg_get_indexdef(i.indexrelid), quote_ident(n.nspname) || '.',"
                + " '<schema>.')"
                + " FROM pg_index i"
                + " JOIN pg_class ic ON ic.oid = i.indexrelid"
                + " JOIN pg_class c ON c.oid = i.indrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND "
                + NOT_LIQUIBASE
                + " ORDER BY ic.relname",
            schema);
    List<String> sequences =
        Jdbc.rows(
            connection,
            "SELECT c.relname, format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement,"
                + " s.seqmin, s.seqmax, s.seqcycle"
                + " FROM pg_sequence s"
                + " JOIN pg_class c ON c.oid = s.seqrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ?"
                + " ORDER BY c.relname",
            schema);
    return new CatalogSnapshot(relations, columns, constraints, indexes, sequences);
  }
}
