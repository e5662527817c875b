package io.tidemark.reconcile.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.ChangeMarker;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RawSource;
import io.tidemark.model.testing.raw.RawFileWriter;
import io.tidemark.reconcile.kernel.EngineException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key column types read from raw files' footers, as the raw table's DDL declares them. */
class TestRawKeyTypes {
  private static final LocalDate DAY = LocalDate.parse("2026-03-01");

  @TempDir Path dir;

  private DatasetSpec spec() {
    return new DatasetSpec(
        "orders",
        null,
        List.of("order_id", "line_no"),
        ChangeMarker.timestamp("updated_at"),
        "op",
        List.of(),
        RawSource.parquet(dir.toString()),
        "curated.orders",
        null);
  }

  private RawFiles.RawFile write(String name, String lineNo, Instant arrived) throws Exception {
    Path f = dir.resolve("ingest_date=" + DAY).resolve(name);
    RawFileWriter.writeQueryOnce(
        f,
        "SELECT 'o-1' AS order_id, "
            + lineNo
            + " AS line_no, TIMESTAMPTZ '2026-03-01 10:00:00+00' AS updated_at");
    return new RawFiles.RawFile(f.toString(), DAY, Files.size(f), arrived);
  }

  private static HadoopFileIO io() {
    return new HadoopFileIO(new Configuration());
  }

  @Test
  void keysTakeTheRawFilesIntegerAndTextTypes() throws Exception {
    RawFiles.RawFile f = write("part-000.parquet", "CAST(7 AS INTEGER)", Instant.now());

    assertThat(RawKeyTypes.read(spec(), io(), List.of(f)))
        .containsExactly(Map.entry("order_id", "string"), Map.entry("line_no", "int"));
  }

  @Test
  void withoutRawFilesEveryKeyIsText() {
    assertThat(RawKeyTypes.read(spec(), io(), List.of()))
        .containsExactly(Map.entry("order_id", "string"), Map.entry("line_no", "string"));
  }

  @Test
  void filesDisagreeingOnAKeysTypeAreNamed() throws Exception {
    RawFiles.RawFile a = write("part-000.parquet", "CAST(7 AS BIGINT)", Instant.now());
    RawFiles.RawFile b = write("part-001.parquet", "'7'", Instant.now());

    assertThatThrownBy(() -> RawKeyTypes.read(spec(), io(), List.of(a, b)))
        .isInstanceOf(EngineException.class)
        .hasMessage(
            "Cannot define the raw table of dataset orders: key column 'line_no' has more than"
                + " one type in the newest raw files, and a table reads one type per column"
                + " ({bigint=["
                + a.path()
                + "], string=["
                + b.path()
                + "]})");
  }
}
