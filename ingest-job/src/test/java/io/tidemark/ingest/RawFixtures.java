package io.tidemark.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** Writes raw Parquet files as a source system would: one named file per call. */
final class RawFixtures {
  static final StructType CUSTOMERS =
      new StructType()
          .add("customer_id", DataTypes.StringType)
          .add("customer_name", DataTypes.StringType)
          .add("email", DataTypes.StringType)
          .add("updated_at", DataTypes.TimestampType)
          .add("op", DataTypes.StringType);

  private RawFixtures() {}

  /** One raw record of the customers contract, as the fixtures' own plain-Java model. */
  record Rec(String id, String name, String email, Instant at, String op) {
    Row row() {
      return RowFactory.create(id, name, email, at == null ? null : Timestamp.from(at), op);
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

  /** Writes {@code <raw>/ingest_date=<date>/<name>} with the customers schema. */
  static Path write(SparkSession spark, Path raw, String date, String name, List<Rec> recs) {
    List<Row> rows = new ArrayList<>();
    recs.forEach(r -> rows.add(r.row()));
    return write(spark, raw.resolve("ingest_date=" + date).resolve(name), CUSTOMERS, rows);
  }

  /**
   * Writes many files of the customers schema in one Spark job: {@code <raw>/ingest_date=<date>/
   * <name>} for each entry of {@code files} (partition date -> file name -> its records).
   */
  static void writeMany(
      SparkSession spark, Path raw, java.util.Map<String, java.util.Map<String, List<Rec>>> files) {
    try {
      List<Path> targets = new ArrayList<>();
      List<Row> rows = new ArrayList<>();
      files.forEach(
          (date, byName) ->
              byName.forEach(
                  (name, recs) -> {
                    int index = targets.size();
                    targets.add(raw.resolve("ingest_date=" + date).resolve(name));
                    for (Rec r : recs) {
                      Row row = r.row();
                      rows.add(
                          RowFactory.create(
                              row.get(0), row.get(1), row.get(2), row.get(3), row.get(4), index));
                    }
                  }));
      Path tmp = Files.createTempDirectory("tidemark-fixtures");
      Files.delete(tmp);
      spark
          .createDataFrame(rows, CUSTOMERS.add("fixture_file", DataTypes.IntegerType))
          .repartition(org.apache.spark.sql.functions.col("fixture_file"))
          .write()
          .partitionBy("fixture_file")
          .parquet(tmp.toString());
      for (int i = 0; i < targets.size(); i++) {
        Path part;
        try (Stream<Path> s = Files.list(tmp.resolve("fixture_file=" + i))) {
          part =
              s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                  .findFirst()
                  .orElseThrow();
        }
        Files.createDirectories(targets.get(i).getParent());
        Files.move(part, targets.get(i));
      }
      try (Stream<Path> s = Files.walk(tmp)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes one Parquet file with any schema at exactly {@code target}. */
  static Path write(SparkSession spark, Path target, StructType schema, List<Row> rows) {
    try {
      Path tmp = Files.createTempDirectory("tidemark-fixture");
      Files.delete(tmp);
      spark.createDataFrame(rows, schema).coalesce(1).write().parquet(tmp.toString());
      Path part;
      try (Stream<Path> s = Files.list(tmp)) {
        part =
            s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                .findFirst()
                .orElseThrow();
      }
      Files.createDirectories(target.getParent());
      Files.move(part, target);
      try (Stream<Path> s = Files.walk(tmp)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
