package io.tidemark.reconcile.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.engine.Freshness;
import io.tidemark.reconcile.fixtures.Contracts;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Freshness asks its engine for the keys waiting in raw only when raw holds a version newer than
 * curated's newest: otherwise none can wait, and on a query service every query is billed and
 * planned. A healthy table's freshness is then one query.
 */
class TestFreshnessMeasure {
  static final Instant NOW = Instant.parse("2024-03-20T00:00:00Z");
  static final long HOUR = 3_600_000_000L;

  /** Answers the markers it is given and records which other queries were asked for. */
  static final class Recorded implements FreshnessMeasure.Queries {
    final FreshnessMeasure.Markers markers;
    final List<String> asked = new ArrayList<>();

    Recorded(Long curated, Long newestRaw, Long oldestRaw) {
      this.markers = new FreshnessMeasure.Markers(curated, newestRaw, oldestRaw);
    }

    @Override
    public FreshnessMeasure.Markers markers() {
      asked.add("markers");
      return markers;
    }

    @Override
    public Finding pendingKeys(long newerThan) {
      asked.add("pending keys newer than " + newerThan);
      return Finding.of(2, List.of("K1", "K2"));
    }

    @Override
    public List<String> pendingFiles(long newerThan) {
      asked.add("pending files newer than " + newerThan);
      return List.of();
    }

    @Override
    public long bytesScanned() {
      return 0;
    }
  }

  static EngineRequest request() {
    return new EngineRequest(
        Contracts.customers("customers", "/raw/customers", "curated.customers"),
        CatalogSpec.localJdbc("/warehouse"),
        ReconciliationMode.FULL,
        null,
        NOW,
        NOW,
        10,
        Duration.ofHours(1),
        null);
  }

  static long micros(Instant i) {
    return i.getEpochSecond() * 1_000_000L;
  }

  @Test
  void rawNoNewerThanCuratedNeedsNoPendingQuery() {
    long curated = micros(NOW) - 5 * HOUR;
    for (Long newestRaw : new Long[] {curated, curated - HOUR, null}) {
      Recorded q = new Recorded(curated, newestRaw, newestRaw == null ? null : newestRaw - HOUR);
      Freshness f = FreshnessMeasure.measure(q, request(), Map.of());
      assertThat(q.asked).as("raw's newest %s", newestRaw).containsExactly("markers");
      assertThat(f.error()).isNull();
      assertThat(f.pending().count()).isZero();
      assertThat(f.lagBehindNow()).isEqualTo(5 * 3600.0);
    }
  }

  @Test
  void aNewerRawVersionIsLookedFor() {
    long curated = micros(NOW) - 5 * HOUR;
    Recorded q = new Recorded(curated, curated + 1, curated - HOUR);
    Freshness f = FreshnessMeasure.measure(q, request(), Map.of());
    assertThat(q.asked).containsExactly("markers", "pending keys newer than " + curated);
    assertThat(f.pending().count()).isEqualTo(2);

    // An empty curated table waits for everything raw holds, since its oldest version.
    Recorded empty = new Recorded(null, curated, curated - HOUR);
    Freshness behind = FreshnessMeasure.measure(empty, request(), Map.of());
    assertThat(empty.asked).containsExactly("markers", "pending keys newer than " + Long.MIN_VALUE);
    assertThat(behind.lagBehindNow()).isEqualTo(6 * 3600.0);
  }
}
