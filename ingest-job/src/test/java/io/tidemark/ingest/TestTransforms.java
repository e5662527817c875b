package io.tidemark.ingest;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.merge.Dedup;
import io.tidemark.ingest.merge.MergePlanner;
import io.tidemark.ingest.validate.Validation;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The pure transformations, on tiny in-memory inputs. */
@Tag("spark")
class TestTransforms extends SparkTestSupport {
  static final StructType NORMALIZED =
      new StructType()
          .add("customer_id", DataTypes.StringType)
          .add(Cols.MARKER_PRESENT, DataTypes.BooleanType)
          .add(Cols.MARKER, DataTypes.TimestampType)
          .add(Cols.OP, DataTypes.StringType)
          .add(Cols.SOURCE_FILE, DataTypes.StringType)
          .add(Cols.ROW_INDEX, DataTypes.LongType);

  static Timestamp ts(String s) {
    return Timestamp.from(Instant.parse(s));
  }

  static Row row(String id, boolean present, String marker, String op, String file, long idx) {
    return RowFactory.create(id, present, marker == null ? null : ts(marker), op, file, idx);
  }

  @Test
  void validationGivesOneReasonPerBadRowAndKeepsGoodOnes() {
    Dataset<Row> rows =
        spark.createDataFrame(
            List.of(
                row("ok", true, "2024-01-01T00:00:00Z", "U", "f", 0),
                row(null, true, "2024-01-01T00:00:00Z", "U", "f", 1),
                row("  ", true, "2024-01-01T00:00:00Z", "U", "f", 2),
                row("m", false, null, "U", "f", 3),
                row("p", true, null, "U", "f", 4),
                row("fut", true, "2024-02-01T00:00:00Z", "U", "f", 5),
                row("op", true, "2024-01-01T00:00:00Z", "X", "f", 6),
                row("del", true, "2024-01-01T00:00:00Z", "D", "f", 7)),
            NORMALIZED);
    Map<Long, String> reasons = new TreeMap<>();
    for (Row r :
        Validation.classify(rows, List.of("customer_id"), lit(ts("2024-01-15T00:00:00Z")))
            .select(Cols.ROW_INDEX, Cols.REASON, Cols.DETAIL)
            .collectAsList()) {
      reasons.put(r.getLong(0), r.getString(1));
      if (r.getString(1) != null) {
        assertThat(r.getString(2)).isNotBlank();
      }
    }
    assertThat(reasons)
        .containsExactlyEntriesOf(
            new TreeMap<>(
                mapOf(
                    0L, null,
                    1L, "NULL_KEY",
                    2L, "NULL_KEY",
                    3L, "MISSING_CHANGE_MARKER",
                    4L, "UNPARSEABLE_CHANGE_MARKER",
                    5L, "FUTURE_CHANGE_MARKER",
                    6L, "UNKNOWN_OPERATION",
                    7L, null)));
  }

  @Test
  void invisibleAndSurroundingCharactersMakeAKeyBlankOrMalformed() {
    String at = "2024-01-01T00:00:00Z";
    Dataset<Row> rows =
        spark.createDataFrame(
            List.of(
                row("\u200b", true, at, "U", "f", 0),
                row("\0", true, at, "U", "f", 1),
                row("\u00a0\t", true, at, "U", "f", 2),
                row("c1 ", true, at, "U", "f", 3),
                row(" c1", true, at, "U", "f", 4),
                row("c\u200b1", true, at, "U", "f", 5),
                row("c1\0", true, at, "U", "f", 6),
                row("c 1", true, at, "U", "f", 7),
                row("Zoë-7", true, at, "U", "f", 8)),
            NORMALIZED);
    Map<Long, String> reasons = new TreeMap<>();
    for (Row r :
        Validation.classify(rows, List.of("customer_id"), lit(ts("2024-01-15T00:00:00Z")))
            .select(Cols.ROW_INDEX, Cols.REASON)
            .collectAsList()) {
      reasons.put(r.getLong(0), r.getString(1));
    }
    Map<Long, String> expected = new TreeMap<>();
    for (long i = 0; i <= 2; i++) {
      expected.put(i, "NULL_KEY");
    }
    for (long i = 3; i <= 6; i++) {
      expected.put(i, "MALFORMED_KEY");
    }
    expected.put(7L, null);
    expected.put(8L, null);
    assertThat(reasons).containsExactlyEntriesOf(expected);
  }

  @Test
  void dedupKeepsTheLatestVersionAndBreaksTiesDeterministically() {
    Dataset<Row> rows =
        spark.createDataFrame(
            List.of(
                row("a", true, "2024-01-01T01:00:00Z", "U", "f1", 0),
                row("a", true, "2024-01-01T03:00:00Z", "U", "f1", 1),
                row("a", true, "2024-01-01T02:00:00Z", "U", "f2", 0),
                // b: equal markers; the delete wins.
                row("b", true, "2024-01-01T01:00:00Z", "U", "f1", 2),
                row("b", true, "2024-01-01T01:00:00Z", "D", "f2", 1),
                // c: equal markers and operations; the earliest delivered row wins.
                row("c", true, "2024-01-01T01:00:00Z", "U", "f2", 5),
                row("c", true, "2024-01-01T01:00:00Z", "U", "f1", 9)),
            NORMALIZED);
    Map<String, String> winners = new TreeMap<>();
    for (Row r :
        Dedup.latestPerKey(rows, List.of("customer_id"))
            .select("customer_id", Cols.OP, Cols.SOURCE_FILE, Cols.ROW_INDEX)
            .collectAsList()) {
      assertThat(
              winners.put(
                  r.getString(0), r.getString(1) + "@" + r.getString(2) + ":" + r.getLong(3)))
          .isNull();
    }
    assertThat(winners)
        .containsExactlyEntriesOf(
            new TreeMap<>(Map.of("a", "U@f1:1", "b", "D@f2:1", "c", "U@f1:9")));
    // Ranked in place: the losers are counted, rows not eligible are not ranked.
    Dataset<Row> ranked =
        Dedup.rank(rows, List.of("customer_id"), col(Cols.OP).equalTo("U"))
            .filter(col(Dedup.RANK).gt(1));
    assertThat(ranked.count()).isEqualTo(3);
    assertThat(
            Dedup.rank(rows, List.of("customer_id"), lit(true))
                .filter(col(Dedup.RANK).gt(1))
                .count())
        .isEqualTo(4);
  }

  @Test
  void plannerAppliesTheVersionGuard() {
    StructType latestSchema =
        new StructType()
            .add("customer_id", DataTypes.StringType)
            .add(Cols.MARKER, DataTypes.TimestampType)
            .add(Cols.OP, DataTypes.StringType);
    StructType tableSchema =
        new StructType()
            .add("customer_id", DataTypes.StringType)
            .add("updated_at", DataTypes.TimestampType);
    String t1 = "2024-01-01T01:00:00Z";
    String t2 = "2024-01-01T02:00:00Z";
    Dataset<Row> latest =
        spark.createDataFrame(
            List.of(
                RowFactory.create("new", ts(t2), "U"),
                RowFactory.create("newer", ts(t2), "U"),
                RowFactory.create("older", ts(t1), "U"),
                RowFactory.create("same", ts(t1), "U"),
                RowFactory.create("del", ts(t1), "D"),
                RowFactory.create("del-old", ts(t1), "D"),
                RowFactory.create("del-unknown", ts(t1), "D"),
                RowFactory.create("del-replayed", ts(t1), "D"),
                RowFactory.create("del-again-newer", ts(t2), "D"),
                RowFactory.create("after-delete", ts(t1), "U"),
                RowFactory.create("recreated", ts(t2), "U")),
            latestSchema);
    Dataset<Row> current =
        spark.createDataFrame(
            List.of(
                RowFactory.create("newer", ts(t1)),
                RowFactory.create("older", ts(t2)),
                RowFactory.create("same", ts(t1)),
                RowFactory.create("del", ts(t1)),
                RowFactory.create("del-old", ts(t2))),
            tableSchema);
    Dataset<Row> tombstones =
        spark.createDataFrame(
            List.of(
                RowFactory.create("after-delete", ts(t2)),
                RowFactory.create("recreated", ts(t1)),
                RowFactory.create("del-replayed", ts(t1)),
                RowFactory.create("del-again-newer", ts(t1))),
            tableSchema);
    Map<String, String> actions = new TreeMap<>();
    for (Row r :
        MergePlanner.plan(latest, current, tombstones, List.of("customer_id"), "updated_at", true)
            .select("customer_id", MergePlanner.ACTION)
            .collectAsList()) {
      actions.put(r.getString(0), r.getString(1));
    }
    assertThat(actions)
        .containsExactlyEntriesOf(
            new TreeMap<>(
                Map.ofEntries(
                    Map.entry("new", "INSERTED"),
                    Map.entry("newer", "UPDATED"),
                    Map.entry("older", "UNCHANGED"),
                    Map.entry("same", "UNCHANGED"),
                    Map.entry("del", "DELETED"),
                    Map.entry("del-old", "UNCHANGED"),
                    Map.entry("del-unknown", "DELETE_OF_UNKNOWN_KEY"),
                    Map.entry("del-replayed", "UNCHANGED"),
                    Map.entry("del-again-newer", "UNCHANGED"),
                    Map.entry("after-delete", "UNCHANGED"),
                    Map.entry("recreated", "INSERTED"))));
    Map<String, String> unpruned = new TreeMap<>();
    for (Row r :
        MergePlanner.plan(latest, current, tombstones, List.of("customer_id"), "updated_at", false)
            .select("customer_id", MergePlanner.ACTION)
            .collectAsList()) {
      unpruned.put(r.getString(0), r.getString(1));
    }
    assertThat(unpruned).as("the plan without broadcast key pruning").isEqualTo(actions);
  }

  private static Map<Long, String> mapOf(Object... kv) {
    Map<Long, String> m = new TreeMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((Long) kv[i], (String) kv[i + 1]);
    }
    return m;
  }
}
