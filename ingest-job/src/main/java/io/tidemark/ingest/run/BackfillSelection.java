package io.tidemark.ingest.run;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.discovery.ProcessedFiles;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.model.report.IngestErrorCode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --mode backfill --from DATE --to DATE}: reads every record of the partitions in the range
 * again and merges them with the version guard. Its commit carries a batch id (for retries and run
 * accounting) and the watermark as it found it, but no checkpoint: the next incremental run starts
 * where the last one left off.
 */
final class BackfillSelection extends FileSelection {
  BackfillSelection(RunContext run) {
    super(run);
  }

  /** Its commit carries no checkpoint: the first incremental run would find data without one. */
  @Override
  void check(TableState state) {
    if (state.checkpoint() == null) {
      throw new IngestException(
          IngestErrorCode.INVALID_CONFIG,
          "Cannot backfill "
              + settings.curatedSparkName()
              + ": the table has no checkpoint yet, and a backfill does not make one; run the job"
              + " without --mode first (its first run loads every raw file), then backfill");
    }
  }

  @Override
  Window window(TableState state) {
    return new Window(
        settings.operator().from(),
        settings.operator().to(),
        List.of(),
        "from " + settings.operator().from() + " to " + settings.operator().to());
  }

  /** A backfill reads every record of its files. */
  @Override
  ProcessedFiles processed(TableState state) {
    return ProcessedFiles.NONE;
  }

  @Override
  String nothingToDo(TableState state) {
    return "no raw files in partitions "
        + settings.operator().from()
        + " to "
        + settings.operator().to();
  }

  /**
   * What decides how a batch's records are validated and merged, as text: the contract's columns
   * and the future tolerance (not the clock, which moves with every run). No checkpoint moves past
   * a backfill, so a rerun after a rule changed must be a new batch.
   */
  @Override
  String rules() {
    return "keys="
        + spec.keyColumns()
        + ";compared="
        + spec.payloadColumns()
        + ";marker="
        + spec.changeMarker().column()
        + "/"
        + spec.changeMarker().type()
        + ";op="
        + spec.operationColumn()
        + ";future-tolerance="
        + settings.futureTolerance();
  }

  /** The watermark stays where it was. */
  @Override
  String watermarkAfter(BatchPlan plan, Object maxValidMarker) {
    return plan.state().watermark();
  }

  /** A batch id, the watermark as it found it and the range; no checkpoint. */
  @Override
  Map<String, String> checkpoint(BatchPlan plan, String watermarkAfter) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(CheckpointCodec.BATCH_ID, plan.batchId());
    if (watermarkAfter != null) {
      props.put(CheckpointCodec.WATERMARK, watermarkAfter);
    }
    props.put(
        CheckpointCodec.BACKFILL_RANGE,
        settings.operator().from() + ".." + settings.operator().to());
    return props;
  }
}
