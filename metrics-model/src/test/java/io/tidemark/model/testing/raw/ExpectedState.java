package io.tidemark.model.testing.raw;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The curated table a correct pipeline must produce, computed in plain Java from the raw rows,
 * independently of the job's code: for each valid key, its latest version by change marker; keys
 * whose latest version is a delete are absent.
 *
 * <p>Valid means: a non-blank key, a change marker no later than now plus the tolerance, and an
 * operation of {@code U}, {@code D} or none. The scenario never gives two versions of one key the
 * same change marker, so no tie-break is involved.
 */
public final class ExpectedState {
  /** One curated row. */
  public record Row(String customerId, String customerName, String email, Instant updatedAt) {}

  private ExpectedState() {}

  public static Map<String, Row> of(
      Collection<RawFile> files, Instant now, Duration futureTolerance) {
    Map<String, RawRecord> latest = new HashMap<>();
    Instant limit = now.plus(futureTolerance);
    for (RawFile f : files) {
      for (RawRecord r : f.rows()) {
        boolean valid =
            r.customerId() != null
                && !r.customerId().isBlank()
                && r.updatedAt() != null
                && !r.updatedAt().isAfter(limit)
                && (r.op() == null || r.op().equals("U") || r.op().equals("D"));
        if (!valid) {
          continue;
        }
        RawRecord current = latest.get(r.customerId());
        if (current == null || r.updatedAt().isAfter(current.updatedAt())) {
          latest.put(r.customerId(), r);
        } else if (r.updatedAt().equals(current.updatedAt()) && !r.equals(current)) {
          throw new IllegalStateException(
              "The scenario gave "
                  + r.customerId()
                  + " two different versions at "
                  + r.updatedAt());
        }
      }
    }
    Map<String, Row> state = new TreeMap<>();
    latest.forEach(
        (key, r) -> {
          if (!"D".equals(r.op())) {
            state.put(key, new Row(key, r.customerName(), r.email(), r.updatedAt()));
          }
        });
    return state;
  }
}
