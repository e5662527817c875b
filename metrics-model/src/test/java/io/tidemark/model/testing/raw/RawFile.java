package io.tidemark.model.testing.raw;

import java.time.LocalDate;
import java.util.List;

/** One raw Parquet file: {@code <raw>/customers/ingest_date=<partition>/<fileName>}. */
public record RawFile(LocalDate partition, String fileName, List<RawRecord> rows) {
  public RawFile {
    rows = List.copyOf(rows);
  }

  public String relativePath() {
    return "ingest_date=" + partition + "/" + fileName;
  }
}
