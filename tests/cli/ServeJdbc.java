// Drives `floe serve` with the PostgreSQL JDBC driver in binary transfer: one line per
// checked value ("label: class value"), so the Python test compares exact output.
// Usage: java -cp postgresql.jar:DIR ServeJdbc PORT
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;

public class ServeJdbc {
  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0]
        + "/lakehouse?user=tester&sslmode=disable&prepareThreshold=0&binaryTransfer=true";
    try (Connection conn = DriverManager.getConnection(url)) {
      try (Statement st = conn.createStatement()) {
        st.execute("CREATE NAMESPACE db");
        st.execute("CREATE TABLE db.j (b BOOLEAN, n INT, l BIGINT, f FLOAT, d DOUBLE, m DECIMAL(12,3), "
            + "s STRING, bin BINARY, dt DATE, t TIMESTAMP_NTZ, tz TIMESTAMP, li ARRAY<INT>) USING iceberg");
        st.execute("INSERT INTO db.j VALUES (true, -42, 9007199254740993, 1.5, 0.1, 12345.678, 'héllo', "
            + "X'01ff', DATE '2024-02-29', TIMESTAMP_NTZ '2024-01-01 10:00:00.25', "
            + "TIMESTAMP '2024-01-01 10:00:00', array(1, 2))");
      }
      try (PreparedStatement ps = conn.prepareStatement("SELECT * FROM db.j");
           ResultSet rs = ps.executeQuery()) {
        ResultSetMetaData md = rs.getMetaData();
        while (rs.next()) {
          for (int i = 1; i <= md.getColumnCount(); i++) {
            Object o = rs.getObject(i);
            String value = o instanceof byte[] ? hex((byte[]) o) : String.valueOf(o);
            System.out.println(md.getColumnName(i) + ": " + md.getColumnTypeName(i) + " "
                + o.getClass().getSimpleName() + " " + value + " | " + rs.getString(i));
          }
        }
      }
      try (PreparedStatement ps = conn.prepareStatement(
               "SELECT n, s, m FROM db.j WHERE n = ? AND s = ? AND m = ? AND dt = ?")) {
        ps.setInt(1, -42);
        ps.setString(2, "héllo");
        ps.setBigDecimal(3, new java.math.BigDecimal("12345.678"));
        ps.setDate(4, java.sql.Date.valueOf("2024-02-29"));
        for (int run = 0; run < 2; run++) {
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              System.out.println("param row: " + rs.getInt(1) + " " + rs.getString(2) + " " + rs.getBigDecimal(3));
            }
          }
        }
      }
      try (Statement st = conn.createStatement()) {
        st.executeQuery("SELECT * FROM nope");
      } catch (org.postgresql.util.PSQLException e) {
        System.out.println("error: " + e.getSQLState() + " at " + e.getServerErrorMessage().getPosition());
      }
      try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 + 1")) {
        rs.next();
        System.out.println("after error: " + rs.getInt(1));
      }
      // What DBeaver's navigator asks: schemas, the tables of one, the columns of one.
      java.sql.DatabaseMetaData meta = conn.getMetaData();
      try (ResultSet rs = meta.getSchemas()) {
        while (rs.next()) {
          System.out.println("schema: " + rs.getString("TABLE_SCHEM"));
        }
      }
      try (ResultSet rs = meta.getTables(null, "db", "%", new String[] {"TABLE"})) {
        while (rs.next()) {
          System.out.println("table: " + rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME")
              + " " + rs.getString("TABLE_TYPE"));
        }
      }
      try (ResultSet rs = meta.getColumns(null, "db", "j", "%")) {
        while (rs.next()) {
          System.out.println("column: " + rs.getInt("ORDINAL_POSITION") + " " + rs.getString("COLUMN_NAME")
              + " " + rs.getString("TYPE_NAME") + " " + rs.getInt("DATA_TYPE") + " "
              + rs.getString("IS_NULLABLE"));
        }
      }
      // What DBeaver's and DataGrip's generic JDBC views ask beyond that: PostgreSQL's answers,
      // empty where floe has no such thing (keys, indexes, functions of a schema, types of
      // its own).
      System.out.println("isolation: " + conn.getTransactionIsolation());
      dump("catalogs", meta.getCatalogs());
      dump("schemas like d%", meta.getSchemas("lakehouse", "d%"));
      dump("table types", meta.getTableTypes());
      dump("tables and views", meta.getTables(null, "db", "%", new String[] {"TABLE", "VIEW"}));
      dump("views", meta.getTables(null, "db", "%", new String[] {"VIEW"}));
      dump("primary keys", meta.getPrimaryKeys(null, "db", "j"));
      dump("imported keys", meta.getImportedKeys(null, "db", "j"));
      dump("exported keys", meta.getExportedKeys(null, "db", "j"));
      dump("index info", meta.getIndexInfo(null, "db", "j", false, true));
      dump("best row identifier", meta.getBestRowIdentifier(null, "db", "j", DatabaseMetaData.bestRowSession, true));
      dump("functions", meta.getFunctions(null, "db", "%"));
      dump("procedures", meta.getProcedures(null, "db", "%"));
      dump("udts", meta.getUDTs(null, "db", "%", null));
      dump("client info properties", meta.getClientInfoProperties());
      // getTypeInfo reads pg_type and, for each type, the driver's type cache, which numbers
      // the search path by (current_schemas(false))[s.r]: PostgreSQL's rows for floe's types.
      typeInfo(meta.getTypeInfo(), "bool", "int4", "numeric", "varchar", "timestamptz", "_int4");
      // Empty answers still type their columns as PostgreSQL does (KEY_SEQ, ORDINAL_POSITION
      // and FUNCTION_TYPE are int4 there).
      types("primary keys", meta.getPrimaryKeys(null, "db", "j"));
      types("imported keys", meta.getImportedKeys(null, "db", "j"));
      types("index info", meta.getIndexInfo(null, "db", "j", false, true));
      types("functions", meta.getFunctions(null, "db", "%"));
    }
  }

  // "label types: COLUMN type/java.sql.Types, ..." for the columns that are not text.
  static void types(String label, ResultSet rs) throws java.sql.SQLException {
    try (ResultSet r = rs) {
      ResultSetMetaData md = r.getMetaData();
      StringBuilder line = new StringBuilder(label + " types:");
      for (int i = 1; i <= md.getColumnCount(); i++) {
        if (md.getColumnType(i) == java.sql.Types.VARCHAR) continue;
        line.append(line.charAt(line.length() - 1) == ':' ? " " : ", ").append(md.getColumnName(i)).append(' ')
            .append(md.getColumnTypeName(i)).append('/').append(md.getColumnType(i));
      }
      System.out.println(line);
    }
  }

  // getTypeInfo's columns, how many types, and the rows of `names`.
  static void typeInfo(ResultSet rs, String... names) throws java.sql.SQLException {
    java.util.List<String> wanted = java.util.Arrays.asList(names);
    try (ResultSet r = rs) {
      ResultSetMetaData md = r.getMetaData();
      StringBuilder head = new StringBuilder("type info:");
      for (int i = 1; i <= md.getColumnCount(); i++) head.append(i == 1 ? " " : ", ").append(md.getColumnName(i));
      System.out.println(head);
      int count = 0;
      while (r.next()) {
        count++;
        if (!wanted.contains(r.getString("TYPE_NAME"))) continue;
        StringBuilder row = new StringBuilder("  ");
        for (int i = 1; i <= md.getColumnCount(); i++) row.append(i == 1 ? "" : "|").append(r.getString(i));
        System.out.println(row);
      }
      System.out.println("  " + count + " types");
    }
  }

  // "label: COLUMN, ..." then one line per row, values joined by |.
  static void dump(String label, ResultSet rs) throws java.sql.SQLException {
    try (ResultSet r = rs) {
      ResultSetMetaData md = r.getMetaData();
      StringBuilder head = new StringBuilder(label + ":");
      for (int i = 1; i <= md.getColumnCount(); i++) head.append(i == 1 ? " " : ", ").append(md.getColumnName(i));
      System.out.println(head);
      while (r.next()) {
        StringBuilder row = new StringBuilder("  ");
        for (int i = 1; i <= md.getColumnCount(); i++) row.append(i == 1 ? "" : "|").append(r.getString(i));
        System.out.println(row);
      }
    }
  }

  static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder("0x");
    for (byte b : bytes) sb.append(String.format("%02x", b));
    return sb.toString();
  }
}
