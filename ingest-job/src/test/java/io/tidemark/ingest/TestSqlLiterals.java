package io.tidemark.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.commit.CommitRequest;
import io.tidemark.ingest.kernel.SqlNames;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A value the job has to write into a statement as a literal (a raw file's path in the quarantine
 * MERGE) reads back as itself, whatever it holds and whatever the session's parser settings: it is
 * data, never SQL. A range of paths is ordered as Spark orders strings.
 */
@Tag("spark")
class TestSqlLiterals extends SparkTestSupport {
  static final List<String> PATHS =
      List.of(
          "s3://raw/customers/ingest_date=2026-12-01/part-0001.parquet",
          "file:/data/o'brien/x.parquet",
          "file:/data/back\\slash/\\u0041/x.parquet",
          "file:/data/a' OR '1'='1/x.parquet",
          "file:/data/%20 space/\"quoted\"/x.parquet",
          "file:/data/caf\u00e9/\ud83d\ude00/x.parquet",
          "");

  @Test
  void aPathReadsBackAsItselfWhateverItHolds() {
    for (String p : PATHS) {
      assertThat(spark.sql("SELECT " + SqlNames.stringLiteral(p)).first().getString(0))
          .as(SqlNames.stringLiteral(p))
          .isEqualTo(p);
    }
  }

  /** A Glue job's {@code --conf} can change how the parser reads string literals. */
  @Test
  void aPathReadsBackAsItselfWithEscapedStringLiteralsOn() {
    String key = "spark.sql.parser.escapedStringLiterals";
    spark.conf().set(key, "true");
    try {
      for (String p : PATHS) {
        assertThat(spark.sql("SELECT " + SqlNames.stringLiteral(p)).first().getString(0))
            .as(SqlNames.stringLiteral(p))
            .isEqualTo(p);
      }
    } finally {
      spark.conf().unset(key);
    }
  }

  /**
   * Java orders strings by UTF-16 units, which put a character above U+FFFF (a surrogate pair)
   * before one in U+E000-U+FFFF; Spark and Iceberg order by UTF-8 bytes. Every path of a range must
   * lie between its ends as Spark sees them, or a retried batch's quarantine rows would be added
   * twice instead of replaced.
   */
  @Test
  void aRangeOfPathsHoldsEveryPathAsSparkOrdersThem() {
    List<String> paths =
        List.of(
            "file:/raw/d=1/a\ue000.parquet",
            "file:/raw/d=1/a\ud83d\ude00.parquet",
            "file:/raw/d=1/a\uffff.parquet");
    CommitRequest.FileRange range = CommitRequest.FileRange.of(paths);
    for (String p : paths) {
      assertThat(
              spark
                  .sql(
                      "SELECT "
                          + SqlNames.stringLiteral(p)
                          + " BETWEEN "
                          + SqlNames.stringLiteral(range.first())
                          + " AND "
                          + SqlNames.stringLiteral(range.last()))
                  .first()
                  .getBoolean(0))
          .as("%s within [%s, %s]", p, range.first(), range.last())
          .isTrue();
    }
  }
}
