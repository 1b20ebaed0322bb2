// pgjdbc: connection, PreparedStatement setters, batch insert, ResultSet getters,
// DatabaseMetaData, transactions, savepoints and a JVM outside UTC. One line per check for tests/clients/run.sh:
// `ok pgjdbc/CHECK` or `FAIL pgjdbc/CHECK: error`. Connects with libpq's PG* variables.

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

public final class PgjdbcChecks {
    private static final int CHECK_TIMEOUT_S = 20;

    interface Check {
        void run(Connection conn) throws Exception;
    }

    public static void main(String[] args) {
        Map<String, Check> checks = new LinkedHashMap<>();
        checks.put("connect", PgjdbcChecks::connect);
        checks.put("prepared_setters", PgjdbcChecks::preparedSetters);
        checks.put("batch_insert", PgjdbcChecks::batchInsert);
        checks.put("result_set_getters", PgjdbcChecks::resultSetGetters);
        checks.put("generated_keys", PgjdbcChecks::generatedKeys);
        checks.put("fetch_size", PgjdbcChecks::fetchSize);
        checks.put("metadata_tables", PgjdbcChecks::metadataTables);
        checks.put("metadata_columns", PgjdbcChecks::metadataColumns);
        checks.put("metadata_primary_keys", PgjdbcChecks::metadataPrimaryKeys);
        checks.put("transactions", PgjdbcChecks::transactions);
        checks.put("savepoints", PgjdbcChecks::savepoints);
        checks.put("jvm_time_zone", PgjdbcChecks::jvmTimeZone);
        for (Map.Entry<String, Check> check : checks.entrySet()) {
            try (Connection conn = connect()) {
                check.getValue().run(conn);
                System.out.println("ok   pgjdbc/" + check.getKey());
            } catch (Exception | AssertionError error) {
                System.out.println("FAIL pgjdbc/" + check.getKey() + ": " + describe(error));
            }
        }
        System.exit(0);
    }

    private static Connection connect() throws SQLException {
        String url = String.format(
                "jdbc:postgresql://%s:%s/%s?user=%s&sslmode=disable&socketTimeout=%d",
                System.getenv("PGHOST"), System.getenv("PGPORT"), System.getenv("PGDATABASE"),
                System.getenv("PGUSER"), CHECK_TIMEOUT_S);
        return DriverManager.getConnection(url);
    }

    private static String describe(Throwable error) {
        String message = String.valueOf(error.getMessage()).split("\n")[0];
        if (error instanceof SQLException sql && sql.getSQLState() != null) {
            message += " (SQLSTATE " + sql.getSQLState() + ")";
        }
        message = error.getClass().getSimpleName() + ": " + message;
        return message.length() > 300 ? message.substring(0, 300) : message;
    }

    private static void expect(String what, Object actual, Object expected) {
        if (!Objects.equals(actual, expected)) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    private static void freshTable(Connection conn, String name, String columns) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + name);
            st.execute("CREATE TABLE " + name + " (" + columns + ")");
        }
    }

    private static List<String> column(ResultSet rs, String name) throws SQLException {
        List<String> values = new ArrayList<>();
        while (rs.next()) {
            values.add(rs.getString(name));
        }
        return values;
    }

    static void connect(Connection conn) throws SQLException {
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT 1")) {
            expect("row", rs.next(), true);
            expect("value", rs.getInt(1), 1);
        }
        expect("product", conn.getMetaData().getDatabaseProductName(), "PostgreSQL");
    }

    static void preparedSetters(Connection conn) throws SQLException {
        freshTable(conn, "jdbc_setters", "d date, ts timestamp, n numeric(12,4), s text");
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_setters VALUES (?, ?, ?, ?)")) {
            ps.setDate(1, Date.valueOf("2024-02-29"));
            ps.setTimestamp(2, Timestamp.valueOf("2024-03-10 08:30:15.25"));
            ps.setBigDecimal(3, new BigDecimal("-1234.5678"));
            ps.setString(4, "it's");
            expect("inserted", ps.executeUpdate(), 1);
        }
        try (Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT d::text, ts::text, n::text, s FROM jdbc_setters")) {
            expect("row", rs.next(), true);
            expect("date", rs.getString(1), "2024-02-29");
            expect("timestamp", rs.getString(2), "2024-03-10 08:30:15.25");
            expect("numeric", rs.getString(3), "-1234.5678");
            expect("text", rs.getString(4), "it's");
        }
    }

    static void batchInsert(Connection conn) throws SQLException {
        freshTable(conn, "jdbc_batch", "id int, v text");
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_batch VALUES (?, ?)")) {
            for (int i = 0; i < 100; i++) {
                ps.setInt(1, i);
                ps.setString(2, "v" + i);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            expect("batch size", counts.length, 100);
        }
        try (Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*), sum(id) FROM jdbc_batch")) {
            rs.next();
            expect("count", rs.getLong(1), 100L);
            expect("sum", rs.getLong(2), 4950L);
        }
    }

    static void resultSetGetters(Connection conn) throws SQLException {
        String sql = "SELECT 42::int, 5000000000::int8, 1.5::float8, 12.345::numeric, true,"
                + " 'text'::text, DATE '2024-02-29', TIMESTAMP '2024-03-10 08:30:15', NULL::int";
        try (PreparedStatement ps = conn.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            expect("row", rs.next(), true);
            expect("int", rs.getInt(1), 42);
            expect("bigint", rs.getLong(2), 5000000000L);
            expect("double", rs.getDouble(3), 1.5);
            expect("numeric", rs.getBigDecimal(4), new BigDecimal("12.345"));
            expect("bool", rs.getBoolean(5), true);
            expect("text", rs.getString(6), "text");
            expect("date", rs.getDate(7), Date.valueOf("2024-02-29"));
            expect("timestamp", rs.getTimestamp(8), Timestamp.valueOf("2024-03-10 08:30:15"));
            expect("null int", rs.getInt(9), 0);
            expect("wasNull", rs.wasNull(), true);
            expect("column label", rs.getMetaData().getColumnCount(), 9);
        }
    }

    static void generatedKeys(Connection conn) throws SQLException {
        freshTable(conn, "jdbc_keys", "id serial PRIMARY KEY, v text");
        String sql = "INSERT INTO jdbc_keys (v) VALUES (?)"; // pgjdbc appends RETURNING "id"
        try (PreparedStatement ps = conn.prepareStatement(sql, new String[] {"id"})) {
            ps.setString(1, "a");
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                expect("keys", column(keys, "id"), List.of("1"));
            }
        }
    }

    static void fetchSize(Connection conn) throws SQLException {
        // Outside autocommit a fetch size makes pgjdbc Execute the portal 10 rows at a time.
        conn.setAutoCommit(false);
        try (PreparedStatement ps = conn.prepareStatement("SELECT x FROM generate_series(1, 25) AS x")) {
            ps.setFetchSize(10);
            long sum = 0;
            int rows = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    sum += rs.getLong(1);
                    rows++;
                }
            }
            expect("rows", rows, 25);
            expect("sum", sum, 325L);
        }
        conn.commit();
    }

    static void metadataTables(Connection conn) throws SQLException {
        freshTable(conn, "jdbc_meta", "id int PRIMARY KEY, name varchar(20) NOT NULL, price numeric(8,2)");
        DatabaseMetaData meta = conn.getMetaData();
        try (ResultSet rs = meta.getTables(null, "public", "jdbc_meta", new String[] {"TABLE"})) {
            expect("tables", column(rs, "TABLE_NAME"), List.of("jdbc_meta"));
        }
    }

    static void metadataColumns(Connection conn) throws SQLException {
        freshTable(conn, "jdbc_meta_columns", "id int PRIMARY KEY, name varchar(20) NOT NULL, price numeric(8,2)");
        List<String> columns = new ArrayList<>();
        try (ResultSet rs = conn.getMetaData().getColumns(null, "public", "jdbc_meta_columns", null)) {
            while (rs.next()) {
                columns.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " "
                        + rs.getInt("COLUMN_SIZE") + " " + rs.getString("IS_NULLABLE"));
            }
        }
        expect("columns", columns, List.of("id int4 10 NO", "name varchar 20 NO", "price numeric 8 YES"));
    }

    static void metadataPrimaryKeys(Connection conn) throws SQLException {
        freshTable(conn, "jdbc_meta_pk", "a int, b text, c int, PRIMARY KEY (b, a)");
        List<String> keys = new ArrayList<>();
        try (ResultSet rs = conn.getMetaData().getPrimaryKeys(null, "public", "jdbc_meta_pk")) {
            while (rs.next()) {
                keys.add(rs.getString("COLUMN_NAME") + " " + rs.getInt("KEY_SEQ"));
            }
        }
        expect("primary key", keys, List.of("b 1", "a 2"));
    }

    static void transactions(Connection conn) throws SQLException {
        freshTable(conn, "jdbc_txn", "id int");
        conn.setAutoCommit(false);
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("INSERT INTO jdbc_txn VALUES (1)");
            conn.commit();
            st.executeUpdate("INSERT INTO jdbc_txn VALUES (2)");
            conn.rollback();
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM jdbc_txn")) {
                rs.next();
                expect("rows", rs.getLong(1), 1L);
            }
        }
        conn.commit();
    }

    static void savepoints(Connection conn) throws SQLException {
        freshTable(conn, "jdbc_savepoint", "id int");
        conn.setAutoCommit(false);
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("INSERT INTO jdbc_savepoint VALUES (1)");
            Savepoint savepoint = conn.setSavepoint("before_two");
            st.executeUpdate("INSERT INTO jdbc_savepoint VALUES (2)");
            conn.rollback(savepoint);
            st.executeUpdate("INSERT INTO jdbc_savepoint VALUES (3)");
            conn.commit();
            try (ResultSet rs = st.executeQuery("SELECT id FROM jdbc_savepoint ORDER BY id")) {
                expect("rows", column(rs, "id"), List.of("1", "3"));
            }
        }
        conn.commit();
    }

    /** A JVM in another zone sends it as TimeZone at start-up; timestamps keep their instant. */
    static void jvmTimeZone(Connection ignored) throws SQLException {
        java.util.TimeZone saved = java.util.TimeZone.getDefault();
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("America/Los_Angeles"));
        try (Connection conn = connect()) {
            try (Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SHOW TimeZone")) {
                expect("row", rs.next(), true);
                expect("zone", rs.getString(1), "America/Los_Angeles");
            }
            freshTable(conn, "jdbc_zones", "ts timestamptz");
            Timestamp noon = Timestamp.valueOf("2024-07-01 12:00:00");
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_zones VALUES (?)")) {
                ps.setTimestamp(1, noon);
                ps.executeUpdate();
            }
            String sql = "SELECT ts, ts::text, (ts AT TIME ZONE 'UTC')::text FROM jdbc_zones";
            try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                expect("row", rs.next(), true);
                expect("instant", rs.getTimestamp(1), noon);
                expect("text", rs.getString(2), "2024-07-01 12:00:00-07");
                expect("utc", rs.getString(3), "2024-07-01 19:00:00");
            }
        } finally {
            java.util.TimeZone.setDefault(saved);
        }
    }
}
