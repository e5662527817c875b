package io.tidemark.ingest.kernel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spark resources one run makes (temp views, cached and pinned datasets), handed to the stages
 * that make them, so that the run releases them however it ends.
 */
public final class RunResources implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunResources.class);

  private final SparkSession spark;
  private final String viewPrefix;
  private final List<String> views = new ArrayList<>();
  private final List<Dataset<Row>> persisted = new ArrayList<>();
  private final List<JavaRDD<Row>> pinned = new ArrayList<>();
  private final RunPhases phases = new RunPhases();
  private int viewsMade;

  public RunResources(SparkSession spark, String runId) {
    this.spark = spark;
    this.viewPrefix = "tidemark_" + runId.replaceAll("[^A-Za-z0-9]", "_") + "_";
  }

  /** The run's stage timings, which the stages that make resources also add to. */
  public RunPhases phases() {
    return phases;
  }

  /** Registers {@code d} as a temp view of this run; returns its name. */
  public String view(Dataset<Row> d) {
    String name = viewPrefix + viewsMade++;
    d.createOrReplaceTempView(name);
    views.add(name);
    return name;
  }

  /**
   * Computes {@code d} now and keeps its rows apart from the tables it read. A plain cache would
   * not do: each write the batch makes to a table (the remembered deletes, the curated table's
   * branch) makes Spark drop every cached result that read that table, so the next statement would
   * plan the batch again, scanning the whole curated table each time, and against the tables as
   * just written rather than as planned.
   *
   * @param countBy a string column whose values the pinned rows are counted by
   */
  public Pinned pin(Dataset<Row> d, String countBy) {
    // Rows kept by an RDD of their own, which Spark's cache of query results knows nothing of; a
    // lost block is recomputed from the plan as it was made (its table snapshots fixed).
    JavaRDD<Row> rows = d.javaRDD().persist(StorageLevel.MEMORY_AND_DISK());
    pinned.add(rows);
    // Counted in the pass that computes them: one Spark job, where a count to pin them and a
    // grouped count after were three.
    int column = d.schema().fieldIndex(countBy);
    HashMap<String, Long> counts =
        rows.aggregate(
            new HashMap<>(),
            (m, r) -> {
              m.merge(r.isNullAt(column) ? NULL_VALUE : r.getString(column), 1L, Long::sum);
              return m;
            },
            (a, b) -> {
              b.forEach((k, v) -> a.merge(k, v, Long::sum));
              return a;
            });
    return new Pinned(d.sparkSession().createDataFrame(rows, d.schema()), counts);
  }

  /** How {@link #pin} counts rows whose counted column is null. */
  public static final String NULL_VALUE = "<null>";

  /**
   * Pinned rows and how many of them have each value of the column counted as they were computed.
   */
  public record Pinned(Dataset<Row> rows, Map<String, Long> counts) {
    public Pinned {
      counts = Map.copyOf(counts);
    }
  }

  /** Caches {@code d} (columnar, spilling to disk) until the run ends. */
  public Dataset<Row> cache(Dataset<Row> d) {
    Dataset<Row> cached = d.persist(StorageLevel.MEMORY_AND_DISK());
    persisted.add(cached);
    return cached;
  }

  /** Drops the views and releases the cached and pinned rows made so far. */
  public void release() {
    for (String v : views) {
      try {
        spark.catalog().dropTempView(v);
      } catch (RuntimeException e) {
        LOG.debug("Cannot drop temp view {}: {}", v, e.toString());
      }
    }
    for (Dataset<Row> d : persisted) {
      d.unpersist(false);
    }
    for (JavaRDD<Row> r : pinned) {
      r.unpersist(false);
    }
    views.clear();
    persisted.clear();
    pinned.clear();
  }

  @Override
  public void close() {
    release();
  }
}
