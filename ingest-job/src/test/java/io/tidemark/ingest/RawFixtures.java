package io.tidemark.ingest;

import io.tidemark.model.testing.raw.RawColumn;
import io.tidemark.model.testing.raw.RawFileWriter;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Raw files of the customers contract for this module's tests, written through the test kit's one
 * raw writer ({@link RawFileWriter}) as a source system would: one named file per call.
 */
final class RawFixtures {
  static final List<RawColumn> CUSTOMERS = RawColumn.CUSTOMERS;

  private RawFixtures() {}

  /** One raw record of the customers contract, as the fixtures' own plain-Java model. */
  record Rec(String id, String name, String email, Instant at, String op) {
    List<Object> row() {
      return Arrays.asList(id, name, email, at, op);
    }
  }

  static Rec u(String id, String name, String at) {
    return new Rec(
        id,
        name,
        name == null ? null : name.toLowerCase() + "@example.com",
        Instant.parse(at),
        "U");
  }

  static Rec d(String id, String at) {
    return new Rec(id, null, null, Instant.parse(at), "D");
  }

  /** A timestamp value for a row of another shape. */
  static Timestamp ts(String at) {
    return Timestamp.from(Instant.parse(at));
  }

  /** Writes {@code <raw>/ingest_date=<date>/<name>} with the customers schema. */
  static Path write(Path raw, String date, String name, List<Rec> recs) {
    return write(raw.resolve("ingest_date=" + date).resolve(name), CUSTOMERS, rows(recs));
  }

  /**
   * Writes many files of the customers schema: {@code <raw>/ingest_date=<date>/<name>} for each
   * entry of {@code files} (partition date -> file name -> its records).
   */
  static void writeMany(Path raw, Map<String, Map<String, List<Rec>>> files) {
    try (RawFileWriter w = new RawFileWriter()) {
      files.forEach(
          (date, byName) ->
              byName.forEach(
                  (name, recs) ->
                      w.write(
                          raw.resolve("ingest_date=" + date).resolve(name),
                          CUSTOMERS,
                          rows(recs))));
    }
  }

  /** Writes one Parquet file with any columns at exactly {@code target}. */
  static Path write(Path target, List<RawColumn> columns, List<? extends List<?>> rows) {
    return RawFileWriter.writeOnce(target, columns, rows);
  }

  private static List<List<?>> rows(List<Rec> recs) {
    List<List<?>> rows = new ArrayList<>();
    recs.forEach(r -> rows.add(r.row()));
    return rows;
  }
}
