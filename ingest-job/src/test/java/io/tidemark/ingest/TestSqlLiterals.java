package io.tidemark.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.kernel.SqlNames;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A value the job has to write into a statement as a literal (a raw file's path in the quarantine
 * MERGE) reads back as itself, whatever it holds: it is data, never SQL.
 */
@Tag("spark")
class TestSqlLiterals extends SparkTestSupport {
  @Test
  void aPathReadsBackAsItselfWhateverItHolds() {
    List<String> paths =
        List.of(
            "s3://raw/customers/ingest_date=2026-12-01/part-0001.parquet",
            "file:/data/o'brien/x.parquet",
            "file:/data/back\\slash/\\u0041/x.parquet",
            "file:/data/a' OR '1'='1/x.parquet",
            "file:/data/%20 space/\"quoted\"/x.parquet",
            "");
    for (String p : paths) {
      assertThat(spark.sql("SELECT " + SqlNames.stringLiteral(p)).first().getString(0))
          .as(SqlNames.stringLiteral(p))
          .isEqualTo(p);
    }
  }
}
