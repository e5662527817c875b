package io.tidemark.model.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a failing key rule's keys hold on each side, column by column: what a user would otherwise
 * write SQL by hand to see.
 *
 * <p>Values are the compared columns' values as the reconciliation compared them (a raw value read
 * as its declared type; timestamps as ISO-8601 instants, floating numbers in Java's notation), so
 * that a difference shown is the difference the rule found, and both engines show it alike. A
 * column the contract marks sensitive shows {@code hash:} and the first 12 hex digits of its
 * value's SHA-256.
 *
 * @param keys how many of the rule's keys {@code differingKeys} counts over: every offending key of
 *     a rule whose keys are on both sides (stale_versions, value_mismatches); 0 for the others
 * @param differingKeys per compared column, in the contract's order: how many of those keys hold
 *     another value in it on each side; empty for a rule whose keys lack one side (missing_keys,
 *     unexpected_keys)
 * @param samples the rule's sample keys (masked as its sample keys are), each with both sides
 */
public record ValueDiff(long keys, Map<String, Long> differingKeys, List<KeyDiff> samples) {
  public ValueDiff {
    Checks.nonNegative("keys", keys);
    differingKeys =
        differingKeys == null
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(differingKeys));
    differingKeys.forEach(
        (column, n) -> {
          if (n == null || n < 0 || n > keys) {
            throw new InvalidDocumentException(
                "differingKeys." + column, n, "must be between 0 and keys (" + keys + ")");
          }
        });
    samples = samples == null ? List.of() : List.copyOf(samples);
  }

  /**
   * One sample key's two sides.
   *
   * @param key the key as the rule's sample shows it
   * @param raw raw's winning version up to the window end; null when raw holds no valid version
   * @param curated curated's row; null when the curated table has none (with several rows, the
   *     first in data-file order)
   * @param differingColumns the compared columns whose values differ between the two sides, in the
   *     contract's order; empty when a side is missing
   */
  public record KeyDiff(
      String key, RawVersion raw, CuratedRow curated, List<String> differingColumns) {
    public KeyDiff {
      Checks.nonBlank("key", key);
      differingColumns = differingColumns == null ? List.of() : List.copyOf(differingColumns);
    }
  }

  /**
   * A raw version.
   *
   * @param file the raw file it was read from
   * @param position its row position in the file; null where the engine cannot say (Athena)
   * @param changeMarker its change marker: an ISO-8601 instant, or the sequence
   * @param delete whether it deletes the key
   * @param values the compared columns' values, in the contract's order (null for SQL NULL)
   */
  public record RawVersion(
      String file,
      Long position,
      String changeMarker,
      boolean delete,
      @JsonInclude(value = JsonInclude.Include.NON_NULL, content = JsonInclude.Include.ALWAYS)
          Map<String, String> values) {
    public RawVersion {
      Checks.nonBlank("file", file);
      values = values == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }
  }

  /**
   * A curated row, and the commit that wrote it (blame).
   *
   * @param dataFile the Iceberg data file it lives in
   * @param snapshotId the snapshot that added that file: the last change of the row; null when the
   *     table's history no longer holds it (expired)
   * @param runId the Tidemark run that made that snapshot; null for a commit by anything else
   * @param operation the snapshot's operation ({@code append}, {@code overwrite}, ...)
   * @param engine what made the snapshot, from its summary ({@code engine-name}); null when it does
   *     not say
   * @param changeMarker its change marker: an ISO-8601 instant, or the sequence
   * @param values the compared columns' values, in the contract's order (null for SQL NULL)
   */
  public record CuratedRow(
      String dataFile,
      Long snapshotId,
      String runId,
      String operation,
      String engine,
      String changeMarker,
      @JsonInclude(value = JsonInclude.Include.NON_NULL, content = JsonInclude.Include.ALWAYS)
          Map<String, String> values) {
    public CuratedRow {
      Checks.nonBlank("dataFile", dataFile);
      values = values == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The same row with its commit named. */
    public CuratedRow blamed(Long snapshot, String run, String op, String madeBy) {
      return new CuratedRow(dataFile, snapshot, run, op, madeBy, changeMarker, values);
    }
  }
}
