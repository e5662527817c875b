package io.tidemark.e2e;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.maintain.TableMaintainer;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.model.testing.raw.CustomerScenario;
import io.tidemark.model.testing.raw.Delivery;
import io.tidemark.model.testing.raw.RawFile;
import io.tidemark.model.testing.raw.RawRecord;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;

/**
 * A long-lived curated table, day after day, maintained behind the job's back as AWS Glue's table
 * optimizers would: a daily change file (1 % of the keys: updates, deletes, inserts) ingested
 * incrementally; every {@code compactEvery} days a compaction (Iceberg's {@code rewrite_data_files}
 * and {@code rewrite_position_delete_files} with their default thresholds) and a removal of orphan
 * files older than three days; every day an expiry of the snapshots older than {@code retainDays}
 * (keeping the last). The maintenance runs in a Spark session of its own, as another engine would.
 * On quiet days the source delivers nothing (an outage, a holiday): the job finds nothing to do
 * while expiry goes on, so after more quiet days than the retention, the snapshot holding the job's
 * checkpoint is past expiry's cutoff and only its tag keeps it for the next run. Days are
 * simulated: a day's "age" is measured from the real time its ingest started.
 *
 * <p>At the end of each 30-day month and on the last day it records the table's shape (data files,
 * delete files, snapshots), the time to read it and the month's mean ingest time, and reconciles it
 * (FULL, embedded engine), which must pass: no full refresh, no failed run, no false alarm. (The
 * simulated days end with yesterday's delivery, so freshness, measured against the real clock, is
 * judged on the last day only.)
 */
public final class MaintenanceSoak {
  /** One month's figures. */
  public record Month(
      int month,
      int lastDay,
      long rows,
      long dataFiles,
      long deleteFiles,
      long snapshots,
      double readSeconds,
      double ingestSeconds,
      Set<String> failing) {}

  /**
   * What the soak found.
   *
   * @param months the figures month by month
   * @param problems every run that did not succeed and every rule that did not pass, in words
   * @param runsFromTheTag the runs whose checkpoint only the tag kept: its snapshot was past
   *     expiry's cutoff and no longer main's current one, and would have been expired without it
   */
  public record Result(List<Month> months, List<String> problems, int runsFromTheTag) {}

  private final Pipeline pipeline;
  private final SparkSession spark;
  private final SparkSession optimizer;
  private final int keys;
  private final int compactEvery;
  private final int retainDays;
  private final java.util.function.IntPredicate quiet;
  private final Random random = new Random(20261206);
  private final List<String> live = new ArrayList<>();
  private final Map<String, Integer> index = new HashMap<>();
  private final List<Long> dayStarts = new ArrayList<>();
  private int nextKey;
  private long expiredBefore = Long.MIN_VALUE;

  /**
   * @param quiet the days the source delivers nothing (an outage, a holiday): the job runs and
   *     finds nothing to do, while expiry goes on
   */
  public MaintenanceSoak(
      Pipeline pipeline,
      SparkSession spark,
      int keys,
      int compactEvery,
      int retainDays,
      java.util.function.IntPredicate quiet) {
    this.quiet = quiet;
    this.pipeline = pipeline;
    this.spark = spark;
    this.keys = keys;
    this.compactEvery = compactEvery;
    this.retainDays = retainDays;
    this.optimizer = spark.newSession();
    IngestSpark.register(optimizer, pipeline.catalog());
  }

  /**
   * Runs {@code days} days (the first is the initial load), reporting each month to {@code log}.
   */
  public Result run(int days, Consumer<String> log) {
    // The last day's delivery lands yesterday, holding the changes of the day before: within the
    // demo contract's freshness threshold (three days) whatever the time of day the soak ends.
    LocalDate first = LocalDate.now(ZoneOffset.UTC).minusDays(days);
    List<Month> months = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<Double> ingestSeconds = new ArrayList<>();
    int fromTag = 0;
    for (int day = 1; day <= days; day++) {
      LocalDate date = first.plusDays(day - 1L);
      boolean delivers = day == 1 || !quiet.test(day);
      if (delivers) {
        pipeline.land(delivery(day, date));
      }
      dayStarts.add(System.currentTimeMillis());
      if (day > 1 && keptByTheTagAlone()) {
        fromTag++;
      }
      long t0 = System.nanoTime();
      IngestOutcome run = pipeline.ingest(FailurePoints.none());
      ingestSeconds.add((System.nanoTime() - t0) / 1e9);
      IngestStatus expected = delivers ? IngestStatus.SUCCEEDED : IngestStatus.NOTHING_TO_DO;
      if (run.report().status() != expected) {
        problems.add(
            "day " + day + ": ingest " + run.report().status() + " " + run.report().error());
      }
      maintain(day);
      if (day % 30 == 0 || day == days) {
        Month m = month(months.size() + 1, day, day == days, ingestSeconds);
        ingestSeconds.clear();
        months.add(m);
        if (!m.failing().isEmpty()) {
          problems.add("day " + day + ": FULL reconciliation failed " + m.failing());
        }
        if (m.rows() != live.size()) {
          problems.add("day " + day + ": curated holds " + m.rows() + " rows, raw " + live.size());
        }
        log.accept(
            String.format(
                java.util.Locale.ROOT,
                "month %2d (day %3d): %,d rows, %d data files, %d delete files, %d snapshots,"
                    + " read %.2f s, ingest %.2f s a day, FULL %s",
                m.month(),
                m.lastDay(),
                m.rows(),
                m.dataFiles(),
                m.deleteFiles(),
                m.snapshots(),
                m.readSeconds(),
                m.ingestSeconds(),
                m.failing().isEmpty() ? "PASS" : "FAIL " + m.failing()));
      }
    }
    return new Result(months, problems, fromTag);
  }

  /**
   * Whether the snapshot holding the job's last checkpoint is one that expiry has passed over
   * (older than its cutoff and no longer main's current snapshot), so that only {@link
   * CheckpointLog#TAG} keeps it, and with it the checkpoint the next run starts from.
   */
  private boolean keptByTheTagAlone() {
    Table t = curated();
    org.apache.iceberg.SnapshotRef tag = t.refs().get(CheckpointLog.TAG);
    if (tag == null || expiredBefore == Long.MIN_VALUE) {
      return false;
    }
    org.apache.iceberg.Snapshot tagged = t.snapshot(tag.snapshotId());
    return tagged != null
        && tagged.snapshotId() != t.currentSnapshot().snapshotId()
        && tagged.timestampMillis() < expiredBefore
        && CheckpointCodec.decode(tagged.snapshotId(), tagged.summary()).isPresent()
        && CheckpointLog.latest(t).isPresent();
  }

  /** What the other engine does after day {@code day}'s ingest. */
  private void maintain(int day) {
    String call = "CALL " + pipeline.catalog().name() + ".system.";
    String table = "table => '" + Pipeline.CURATED_TABLE + "'";
    if (day % compactEvery == 0) {
      optimizer.sql(call + "rewrite_data_files(" + table + ")");
      optimizer.sql(call + "rewrite_position_delete_files(" + table + ")");
      if (day > 3) {
        SparkActions.get(optimizer)
            .deleteOrphanFiles(curated())
            .olderThan(dayStarts.get(day - 1 - 3))
            .execute();
      }
    }
    if (day > retainDays) {
      expiredBefore = dayStarts.get(day - 1 - retainDays);
      optimizer.sql(
          call
              + "expire_snapshots("
              + table
              + ", older_than => "
              + timestamp(expiredBefore)
              + ", retain_last => 1)");
    }
  }

  private Month month(int month, int day, boolean today, List<Double> ingestSeconds) {
    Table t = curated();
    TableMaintainer.LiveFiles live = TableMaintainer.LiveFiles.of(t);
    long snapshots = TableMaintainer.snapshots(t);
    // A read that must open every file and apply every delete (a count alone could come from
    // metadata): the warm second of two.
    String read = "SELECT count(*), sum(length(customer_name)) FROM " + pipeline.sparkTable();
    spark.sql(read).collect();
    long t0 = System.nanoTime();
    long rows = spark.sql(read).first().getLong(0);
    double readSeconds = (System.nanoTime() - t0) / 1e9;
    ReconciliationReport full =
        pipeline.reconciler().run(Pipeline.DATASET, ReconciliationMode.FULL, null, null, "soak");
    Set<String> failing = new java.util.TreeSet<>();
    if (full.status() == io.tidemark.model.report.ReconciliationStatus.ERROR) {
      failing.add("ERROR " + full.error());
    }
    // Freshness measures the newest change marker against the real clock: a month's end before
    // the last simulated day is dated in the past by design, so only the last day judges it.
    full.results().stream()
        .filter(r -> r.status() != RuleStatus.PASS)
        .filter(r -> today || r.kind() != io.tidemark.model.config.RuleKind.FRESHNESS)
        .forEach(r -> failing.add(r.ruleId() + " " + r.status()));
    return new Month(
        month,
        day,
        rows,
        live.dataFiles(),
        live.deleteFiles(),
        snapshots,
        readSeconds,
        ingestSeconds.stream().mapToDouble(Double::doubleValue).average().orElse(0),
        failing);
  }

  private Table curated() {
    try {
      return Spark3Util.loadIcebergTable(spark, pipeline.sparkTable());
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load " + pipeline.sparkTable(), e);
    }
  }

  /** Day 1: every key; then 1 % of the live keys: 60 % updated, 20 % deleted, 20 % new. */
  private Delivery delivery(int day, LocalDate date) {
    Instant start = CustomerScenario.startOf(date.minusDays(1));
    List<RawRecord> rows = new ArrayList<>();
    if (day == 1) {
      for (int i = 0; i < keys; i++) {
        rows.add(upsert(newKey(), start.plusSeconds(i % 86_000)));
      }
    } else {
      int changes = Math.max(5, keys / 100);
      Set<String> touched = new HashSet<>();
      for (int i = 0; i < changes; i++) {
        Instant at = start.plusSeconds(i * (86_000L / changes));
        int kind = random.nextInt(10);
        if (kind < 2 || live.isEmpty()) {
          rows.add(upsert(newKey(), at));
          continue;
        }
        String key = live.get(random.nextInt(live.size()));
        if (!touched.add(key)) {
          continue;
        }
        if (kind < 8) {
          rows.add(upsert(key, at));
        } else {
          rows.add(new RawRecord(key, null, null, at, "D"));
          remove(key);
        }
      }
    }
    return new Delivery(
        day, date, List.of(new RawFile(date, "part-0001.parquet", rows)), "soak day " + day);
  }

  private String newKey() {
    String key = String.format("S%08d", nextKey++);
    index.put(key, live.size());
    live.add(key);
    return key;
  }

  private void remove(String key) {
    int at = index.remove(key);
    String last = live.remove(live.size() - 1);
    if (!last.equals(key)) {
      live.set(at, last);
      index.put(last, at);
    }
  }

  private static RawRecord upsert(String key, Instant at) {
    return new RawRecord(
        key, "name-" + key + "-" + at.getEpochSecond(), key + "@example.com", at, "U");
  }

  private static String timestamp(long millis) {
    return "TIMESTAMP '"
        + DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC)
            .format(Instant.ofEpochMilli(millis))
        + "'";
  }
}
