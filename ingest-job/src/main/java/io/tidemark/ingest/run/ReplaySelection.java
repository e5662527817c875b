package io.tidemark.ingest.run;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.OperatorOptions;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.ingest.validate.QuarantinedRecords;
import io.tidemark.model.contract.ReasonCode;
import io.tidemark.model.report.IngestStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;

/**
 * {@code --mode replay-quarantine}: selects quarantined records to judge again with the current
 * settings (future tolerance, clock, key rules); the ones now valid go through the stages of any
 * batch ({@link ReplayBatch}) and are then marked replayed in the quarantine table, where they stay
 * for audit.
 *
 * <p>It selects the quarantine rows not replayed yet that match every filter of {@link
 * OperatorOptions} (reason, batch id, source file). Rows of a reason that applies to a whole file
 * ({@link ReasonCode#wholeFile()}) are left as they are: they cannot be judged row by row (a row of
 * a file missing a column would merge with that column null). The file has to be delivered again.
 * The other rows are rebuilt from their {@code original_values} ({@link QuarantinedRecords}).
 *
 * <p>Once marked, rows are not selected again, so a second replay of the same selection is {@link
 * IngestStatus#NOTHING_TO_DO}.
 */
public final class ReplaySelection implements Selection {
  static final Logger LOG = RunLog.LOG;

  /** Prefix of the warning a dry run's report carries first. */
  public static final String DRY_RUN = "Dry run: nothing was committed";

  private final RunContext run;
  private final IngestSettings settings;
  private final OperatorOptions options;

  ReplaySelection(RunContext run) {
    this.run = run;
    this.settings = run.settings();
    this.options = settings.operator();
  }

  @Override
  public Choice select() {
    // Like any run: first rebuild the report of a predecessor that committed without one (a
    // replay's own commit would hide it from the next run), and make sure its own can be written.
    Housekeeping housekeeping = new Housekeeping(run);
    Table found = run.tables().loadCurated();
    if (found != null) {
      housekeeping.recoverMissingReport(found);
    }
    if (!options.dryRun()) {
      housekeeping.checkReportWritable();
    }
    LOG.info(
        "Run {}: replaying the rows of {} {} into {}{}",
        run.start().runId(),
        settings.quarantineSparkName(),
        selection(),
        settings.curatedSparkName(),
        options.dryRun() ? " (dry run)" : "");
    Table curated = run.tables().loadCurated();
    if (curated == null || run.tables().load(settings.quarantineSparkName()) == null) {
      return nothingToDo(
          "Nothing to replay: "
              + (curated == null ? settings.curatedSparkName() : settings.quarantineSparkName())
              + " does not exist yet (no batch was ingested)");
    }
    // The checkpoint stays where it is: the report shows its watermark before and after.
    TableState state = TableState.of(curated);
    run.trail().reached(state);
    run.trail().watermarkAfter(state.watermark());
    return select(state);
  }

  private Choice select(TableState state) {
    boolean hasReplayColumns = run.tables().hasReplayColumns();
    if (!hasReplayColumns && !options.dryRun()) {
      run.tables().ensureReplayColumns();
      hasReplayColumns = true;
    }
    Dataset<Row> selected = run.resources().cache(rows(hasReplayColumns));
    List<String> files =
        selected.select("source_file").distinct().sort("source_file").collectAsList().stream()
            .map(r -> r.getString(0))
            .toList();
    run.trail().reached(new RunTrail.BatchIdentity(null, files, List.of()));
    if (files.isEmpty()) {
      return nothingToDo(
          "Nothing to replay: "
              + settings.quarantineSparkName()
              + " holds no row "
              + selection()
              + "; nothing committed");
    }
    List<String> wholeFile =
        Arrays.stream(ReasonCode.values())
            .filter(ReasonCode::wholeFile)
            .map(ReasonCode::name)
            .toList();
    Column isWholeFile =
        col("reason").isin(wholeFile.toArray()).or(col("original_values").isNull());
    long recordsRead = selected.filter(col("row_number").geq(0)).count();
    leaveWholeFileEntries(selected.filter(isWholeFile));
    QuarantinedRecords records =
        new QuarantinedRecords(
            settings.dataset(), selected.filter(not(isWholeFile)), run.tables().curatedTypes());
    return new Choice.Process(new ReplayBatch(run, state, records, recordsRead));
  }

  /** The quarantine rows not replayed yet that match every filter (the caller caches them). */
  private Dataset<Row> rows(boolean hasReplayColumns) {
    Column where = hasReplayColumns ? col(OutputTables.REPLAYED_AT).isNull() : lit(true);
    if (options.reason() != null) {
      where = where.and(col("reason").equalTo(lit(options.reason())));
    }
    if (options.batchId() != null) {
      where = where.and(col("batch_id").equalTo(lit(options.batchId())));
    }
    if (options.file() != null) {
      where = where.and(col("source_file").equalTo(lit(options.file())));
    }
    return run.spark()
        .table(settings.quarantineSparkName())
        .filter(where)
        .select("batch_id", "source_file", "row_number", "reason", "original_values");
  }

  /** Counts the whole-file entries the replay leaves, and tells the operator what to do. */
  private void leaveWholeFileEntries(Dataset<Row> entries) {
    List<Row> byFile =
        entries
            .groupBy("source_file", "reason")
            .count()
            .sort("source_file", "reason")
            .collectAsList();
    if (byFile.isEmpty()) {
      return;
    }
    List<String> files = new ArrayList<>();
    long rows = 0;
    for (Row r : byFile) {
      files.add(r.getString(0) + " (" + r.getString(1) + ", " + r.getLong(2) + " row(s))");
      rows += r.getLong(2);
    }
    String warning =
        rows
            + " quarantine row(s) of "
            + files.size()
            + " file(s) quarantined whole were left as they are: a whole-file reason cannot be"
            + " re-validated row by row. Deliver a corrected file under a new name (or replace"
            + " it): the next incremental run or --mode sweep reads it. "
            + files;
    LOG.warn(warning);
    run.trail().warn(warning);
  }

  static Choice nothingToDo(String message) {
    LOG.info(message);
    return new Choice.End(Ending.nothingToDo(List.of(message)));
  }

  /**
   * The selection as a phrase that follows "row(s)": {@code not yet replayed with reason X,
   * quarantined by batch B, from file F}.
   */
  String selection() {
    List<String> f = new ArrayList<>();
    f.add("not yet replayed");
    if (options.reason() != null) {
      f.add(" with reason " + options.reason());
    }
    if (options.batchId() != null) {
      f.add((f.size() > 1 ? "," : "") + " quarantined by batch " + options.batchId());
    }
    if (options.file() != null) {
      f.add((f.size() > 1 ? "," : "") + " from file " + options.file());
    }
    return String.join("", f);
  }
}
