package io.tidemark.model.config;

import io.tidemark.model.json.Checks;

/**
 * Where and how a dataset's raw files land: {@code
 * <location>/<partitionColumn>=YYYY-MM-DD/*.parquet}.
 *
 * @param location the dataset's raw folder, a local path or any Hadoop URI ({@code s3://...})
 * @param partitionColumn the date partition's name, default {@code ingest_date}
 * @param format the file format, only {@code parquet} for now
 */
public record RawSource(String location, String partitionColumn, String format) {
  public static final String PARTITION_COLUMN_DEFAULT = "ingest_date";
  public static final String FORMAT_DEFAULT = "parquet";

  public RawSource {
    Checks.nonBlank("location", location);
    partitionColumn =
        Checks.identifier(
            "partitionColumn",
            partitionColumn == null ? PARTITION_COLUMN_DEFAULT : partitionColumn);
    format = format == null ? FORMAT_DEFAULT : format;
    if (!FORMAT_DEFAULT.equals(format)) {
      throw new io.tidemark.model.json.InvalidDocumentException(
          "format", format, "only 'parquet' is supported");
    }
  }

  public static RawSource parquet(String location) {
    return new RawSource(location, null, null);
  }
}
