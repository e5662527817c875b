package io.tidemark.ingest.config;

import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.report.IngestMode;
import java.time.Duration;
import java.time.LocalDate;

/**
 * What the operator modes select: a backfill's date range, a quarantine replay's filters and
 * whether a replay only says what it would do, and how long maintenance keeps snapshots and files.
 *
 * @param from a backfill's first raw partition, inclusive; null in other modes
 * @param to a backfill's last raw partition, inclusive; null in other modes
 * @param reason a replay's reason code filter (e.g. {@code FUTURE_MARKER}); null for any
 * @param batchId a replay's batch id filter; null for any
 * @param file a replay's source file filter (the path as quarantined); null for any
 * @param dryRun a replay that prints what it would do and commits nothing
 * @param retainSnapshots maintenance: snapshots committed within this are kept; null for {@link
 *     #RETAIN_SNAPSHOTS_DEFAULT}
 * @param orphanAge maintenance: unreferenced files younger than this are kept; null for {@link
 *     #ORPHAN_AGE_DEFAULT}
 */
public record OperatorOptions(
    LocalDate from,
    LocalDate to,
    String reason,
    String batchId,
    String file,
    boolean dryRun,
    Duration retainSnapshots,
    Duration orphanAge) {

  /** Iceberg's own default snapshot age ({@code history.expire.max-snapshot-age-ms}). */
  public static final Duration RETAIN_SNAPSHOTS_DEFAULT = Duration.ofDays(5);

  /** Iceberg's {@code remove_orphan_files} default. */
  public static final Duration ORPHAN_AGE_DEFAULT = Duration.ofDays(3);

  /**
   * The youngest orphan age taken: a file younger may belong to a commit in flight (Iceberg's
   * procedure refuses less than a day for the same reason).
   */
  public static final Duration ORPHAN_AGE_MIN = Duration.ofDays(1);

  private static final java.util.List<String> REASON_CODES =
      java.util.Arrays.stream(io.tidemark.model.contract.ReasonCode.values())
          .map(Enum::name)
          .toList();

  /** No operator options: the incremental, full-refresh and sweep modes. */
  public static final OperatorOptions NONE =
      new OperatorOptions(null, null, null, null, null, false, null, null);

  public OperatorOptions {
    reason = blankToNull(reason);
    if (reason != null) {
      reason = reason.toUpperCase(java.util.Locale.ROOT);
      if (!REASON_CODES.contains(reason)) {
        throw new InvalidDocumentException(
            "reason", reason, "is not a quarantine reason code; one of " + REASON_CODES);
      }
    }
    batchId = blankToNull(batchId);
    file = blankToNull(file);
    if (from != null && to != null && from.isAfter(to)) {
      throw new InvalidDocumentException("from", from, "is after --to " + to);
    }
    if (retainSnapshots != null && retainSnapshots.isNegative()) {
      throw new InvalidDocumentException(
          "retainSnapshots", retainSnapshots, "must not be negative");
    }
    if (orphanAge != null && orphanAge.compareTo(ORPHAN_AGE_MIN) < 0) {
      throw new InvalidDocumentException(
          "orphanAge",
          orphanAge,
          "must be at least "
              + ORPHAN_AGE_MIN
              + ": a younger unreferenced file may belong to a commit in flight");
    }
  }

  /** A backfill of the partitions from {@code from} to {@code to}, both inclusive. */
  public static OperatorOptions backfill(LocalDate from, LocalDate to) {
    return new OperatorOptions(from, to, null, null, null, false, null, null);
  }

  /** A quarantine replay of the rows matching every given filter (null: any). */
  public static OperatorOptions replay(String reason, String batchId, String file, boolean dryRun) {
    return new OperatorOptions(null, null, reason, batchId, file, dryRun, null, null);
  }

  /** Maintenance keeping snapshots for {@code retainSnapshots} and files for {@code orphanAge}. */
  public static OperatorOptions maintain(Duration retainSnapshots, Duration orphanAge) {
    return new OperatorOptions(null, null, null, null, null, false, retainSnapshots, orphanAge);
  }

  /** How long maintenance keeps snapshots. */
  public Duration snapshotRetention() {
    return retainSnapshots == null ? RETAIN_SNAPSHOTS_DEFAULT : retainSnapshots;
  }

  /** How old an unreferenced file must be for maintenance to remove it. */
  public Duration orphanFileAge() {
    return orphanAge == null ? ORPHAN_AGE_DEFAULT : orphanAge;
  }

  /** Checks that the options belong to the mode; the message names the option out of place. */
  void checkFor(IngestMode mode) {
    if (mode != IngestMode.MAINTAIN && (retainSnapshots != null || orphanAge != null)) {
      throw new InvalidDocumentException(
          retainSnapshots != null ? "retainSnapshots" : "orphanAge",
          retainSnapshots != null ? retainSnapshots : orphanAge,
          "only --mode maintain takes it, not --mode " + mode.cliName());
    }
    if (mode == IngestMode.BACKFILL) {
      if (from == null || to == null) {
        throw new InvalidDocumentException(
            from == null ? "from" : "to",
            null,
            "--mode backfill needs --from DATE and --to DATE (YYYY-MM-DD, both inclusive)");
      }
    } else if (from != null || to != null) {
      throw new InvalidDocumentException(
          from != null ? "from" : "to",
          from != null ? from : to,
          "only --mode backfill takes a date range, not --mode " + mode.cliName());
    }
    if (mode != IngestMode.REPLAY_QUARANTINE) {
      String stray =
          reason != null
              ? "reason"
              : batchId != null ? "batchId" : file != null ? "file" : dryRun ? "dryRun" : null;
      if (stray != null) {
        Object value =
            switch (stray) {
              case "reason" -> reason;
              case "batchId" -> batchId;
              case "file" -> file;
              default -> true;
            };
        throw new InvalidDocumentException(
            stray, value, "only --mode replay-quarantine takes it, not --mode " + mode.cliName());
      }
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
