package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.report.ValueDiff;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.storage.IcebergTables;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shows what the failing key measures' keys hold on each side, for every engine: per compared
 * column how many of the stale and mismatched keys differ in it ({@link
 * ReconciliationSql#differingColumns}), and for each sample key raw's winning version beside
 * curated's row ({@link ReconciliationSql#diffSides}), with the commit that wrote that row.
 *
 * <p>The queries read {@code raw_valued} and {@code curated_valued} besides the comparison's
 * relations; they run only when a key measure found something, so a clean reconciliation pays
 * nothing for them. A difference that cannot be shown (a query fails) leaves the findings as they
 * were, with a warning: the rules' verdicts never depend on it.
 */
public final class ValueDiffs {
  private static final Logger LOG = LoggerFactory.getLogger(ValueDiffs.class);

  /** The findings, in {@code Observations}' order, that show a difference. */
  private static final int MISSING = 1;

  private static final int UNEXPECTED = 2;
  private static final int STALE = 4;
  private static final int MISMATCHED = 5;
  private static final List<Integer> SHOWN = List.of(MISSING, UNEXPECTED, STALE, MISMATCHED);

  private ValueDiffs() {}

  /** Runs one query after the comparison and returns its rows as text (NULL as null). */
  @FunctionalInterface
  public interface Rows {
    List<List<String>> run(String label, Sql query) throws Exception;
  }

  /**
   * The findings with a difference on each that found keys.
   *
   * @param findings the six key findings, in {@code Observations}' order
   * @param curatedTypes the curated table's column types as the contract names them: how values are
   *     shown (timestamps as instants, floating numbers in Java's notation)
   * @param rawFile a raw file as the engine names it, to the path the raw listing gives it (the
   *     same on every engine)
   * @param blame the commit that added each data file, by location; files it does not name show no
   *     commit
   */
  public static List<Finding> attach(
      ReconciliationSql sql,
      DatasetSpec spec,
      Sql cap,
      List<Finding> findings,
      Map<String, String> curatedTypes,
      Rows rows,
      java.util.function.UnaryOperator<String> rawFile,
      Function<Set<String>, Map<String, IcebergTables.FileCommit>> blame) {
    return attach(sql, spec, cap, findings, curatedTypes, rows, Runnable::run, rawFile, blame);
  }

  /**
   * The same, its two queries run on {@code queries}: side by side on an engine whose connection
   * takes several at once (a service that plans one query on one core), one after the other with
   * {@code Runnable::run}.
   */
  public static List<Finding> attach(
      ReconciliationSql sql,
      DatasetSpec spec,
      Sql cap,
      List<Finding> findings,
      Map<String, String> curatedTypes,
      Rows rows,
      java.util.concurrent.Executor queries,
      java.util.function.UnaryOperator<String> rawFile,
      Function<Set<String>, Map<String, IcebergTables.FileCommit>> blame) {
    Set<String> keys = new LinkedHashSet<>();
    for (int i : SHOWN) {
      Finding f = findings.get(i);
      if (!f.failed() && f.count() > 0) {
        keys.addAll(f.sample());
      }
    }
    if (keys.isEmpty()) {
      return findings;
    }
    try {
      Formats formats = new Formats(spec, curatedTypes);
      Map<String, long[]> differing = new HashMap<>();
      boolean bothSides = findings.get(STALE).count() > 0 || findings.get(MISMATCHED).count() > 0;
      java.util.concurrent.CompletableFuture<List<List<String>>> perColumn =
          bothSides && !spec.comparedColumns().isEmpty()
              ? java.util.concurrent.CompletableFuture.supplyAsync(
                  () -> run(rows, "difference by column", sql.differingColumns(spec, cap)), queries)
              : java.util.concurrent.CompletableFuture.completedFuture(List.of());
      List<List<String>> sides =
          rows.run("difference of the sample keys", sql.diffSides(spec, cap, List.copyOf(keys)));
      List<List<String>> columns;
      try {
        columns = perColumn.join();
      } catch (java.util.concurrent.CompletionException e) {
        throw e.getCause() instanceof Exception x ? x : e;
      }
      for (List<String> row : columns) {
        long[] counts = new long[row.size() - 1];
        for (int i = 1; i < row.size(); i++) {
          counts[i - 1] = KeySamples.number(row.get(i));
        }
        differing.put(row.get(0), counts);
      }
      Map<String, ValueDiff.RawVersion> raw = new HashMap<>();
      Map<String, ValueDiff.CuratedRow> curated = new HashMap<>();
      for (List<String> row : sides) {
        String key = row.get(1);
        if (row.get(0).equals("raw")) {
          raw.putIfAbsent(
              key,
              new ValueDiff.RawVersion(
                  rawFile.apply(row.get(4)),
                  KeySamples.nullableNumber(row.get(5)),
                  formats.marker(row.get(2)),
                  Boolean.parseBoolean(row.get(3)),
                  formats.values(row)));
        } else {
          curated.putIfAbsent(
              key,
              new ValueDiff.CuratedRow(
                  row.get(4),
                  null,
                  null,
                  null,
                  null,
                  formats.marker(row.get(2)),
                  formats.values(row)));
        }
      }
      Set<String> files = new LinkedHashSet<>();
      curated.values().forEach(c -> files.add(c.dataFile()));
      Map<String, IcebergTables.FileCommit> commits = blame.apply(files);
      curated.replaceAll(
          (k, c) -> {
            var commit = commits.get(c.dataFile());
            return commit == null
                ? c
                : c.blamed(
                    commit.snapshotId(), commit.runId(), commit.operation(), commit.writer());
          });
      List<Finding> out = new ArrayList<>(findings);
      for (int i : SHOWN) {
        Finding f = findings.get(i);
        if (f.failed() || f.count() == 0) {
          continue;
        }
        String rule = i == STALE ? "stale_versions" : i == MISMATCHED ? "value_mismatches" : null;
        long[] counts = rule == null ? null : differing.get(rule);
        Map<String, Long> byColumn = new LinkedHashMap<>();
        long total = 0;
        if (counts != null) {
          total = counts[0];
          for (int c = 0; c < spec.comparedColumns().size(); c++) {
            byColumn.put(spec.comparedColumns().get(c), counts[c + 1]);
          }
        }
        List<ValueDiff.KeyDiff> samples = new ArrayList<>();
        for (String key : f.sample()) {
          ValueDiff.RawVersion r = raw.get(key);
          ValueDiff.CuratedRow c = curated.get(key);
          samples.add(new ValueDiff.KeyDiff(key, r, c, differingColumns(spec, r, c)));
        }
        out.set(i, f.withDiff(new ValueDiff(total, byColumn, samples)));
      }
      return out;
    } catch (Exception e) {
      LOG.warn(
          "Cannot show the difference of dataset {}'s failing keys: {}", spec.name(), e.toString());
      return findings;
    }
  }

  /** One query, its failure unchecked (for a task of an executor). */
  private static List<List<String>> run(Rows rows, String label, Sql query) {
    try {
      return rows.run(label, query);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new java.util.concurrent.CompletionException(e);
    }
  }

  /** The commits that added data files of the request's curated snapshot, read from its catalog. */
  public static Function<Set<String>, Map<String, IcebergTables.FileCommit>> blame(
      EngineRequest request) {
    return files -> {
      Catalog catalog = IcebergTables.catalog(request.catalog());
      try {
        return IcebergTables.addedBy(
            IcebergTables.load(catalog, request.dataset().curatedTable()),
            request.curatedSnapshot(),
            files);
      } finally {
        IcebergTables.close(catalog);
      }
    };
  }

  /** The compared columns whose values differ between two present sides, or none. */
  static List<String> differingColumns(
      DatasetSpec spec, ValueDiff.RawVersion raw, ValueDiff.CuratedRow curated) {
    if (raw == null || curated == null || raw.delete()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String column : spec.comparedColumns()) {
      if (!java.util.Objects.equals(raw.values().get(column), curated.values().get(column))) {
        out.add(column);
      }
    }
    return out;
  }

  /** How values and markers read as text are shown, the same for every engine. */
  private static final class Formats {
    private final DatasetSpec spec;
    private final List<String> types = new ArrayList<>();

    Formats(DatasetSpec spec, Map<String, String> curatedTypes) {
      this.spec = spec;
      for (String column : spec.comparedColumns()) {
        String t = curatedTypes.get(column);
        types.add(t == null ? "" : t.toLowerCase(Locale.ROOT));
      }
    }

    String marker(String text) {
      if (text == null) {
        return null;
      }
      return spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP ? instant(text) : text;
    }

    /** The values after the first six columns of a {@code diffSides} row, by column. */
    Map<String, String> values(List<String> row) {
      Map<String, String> out = new LinkedHashMap<>();
      for (int i = 0; i < types.size(); i++) {
        out.put(spec.comparedColumns().get(i), value(types.get(i), row.get(6 + i)));
      }
      return out;
    }

    private static String value(String type, String text) {
      if (text == null) {
        return null;
      }
      try {
        if (type.startsWith("timestamp")) {
          return instant(text);
        }
        if (type.equals("double") || type.equals("float")) {
          return Double.toString(Double.parseDouble(text));
        }
      } catch (NumberFormatException e) {
        return text; // not what the column's type reads as: shown as read
      }
      return text;
    }

    private static String instant(String micros) {
      long m = Long.parseLong(micros.trim());
      return Instant.ofEpochSecond(
              Math.floorDiv(m, 1_000_000L), Math.floorMod(m, 1_000_000L) * 1000)
          .toString();
    }
  }
}
