package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.contract.RawLayout.Folder;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class TestRawLayout {
  @Test
  void dataFilesAreParquetInAnyCaseAndVisible() {
    assertThat(RawLayout.isDataFile("part-0.parquet")).isTrue();
    assertThat(RawLayout.isDataFile("EXPORT.PARQUET")).isTrue();
    assertThat(RawLayout.isDataFile("a[1].parquet")).isTrue();
    assertThat(RawLayout.isDataFile("export-2026-11-21T10:00:00.parquet")).isTrue();
    assertThat(RawLayout.isDataFile("b{x,y}.Parquet")).isTrue();
    assertThat(RawLayout.isDataFile("_SUCCESS")).isFalse();
    assertThat(RawLayout.isDataFile("_part.parquet")).isFalse();
    assertThat(RawLayout.isDataFile(".part-0.parquet.crc")).isFalse();
    assertThat(RawLayout.isDataFile(".tmp.parquet")).isFalse();
    assertThat(RawLayout.isDataFile("manifest.json")).isFalse();
    assertThat(RawLayout.isDataFile("part-0.parquet.gz")).isFalse();
  }

  @Test
  void partitionFoldersAreExactNamesWithRealDates() {
    assertThat(RawLayout.classifyFolder("ingest_date", "ingest_date=2026-11-21"))
        .isEqualTo(Folder.partition(LocalDate.of(2026, 11, 21)));
    assertThat(RawLayout.partitionFolder("ingest_date", LocalDate.of(2026, 1, 2)))
        .isEqualTo("ingest_date=2026-01-02");
    assertThat(RawLayout.classifyFolder("ingest_date", "_temporary").kind())
        .isEqualTo(Folder.Kind.HIDDEN);
    assertThat(RawLayout.classifyFolder("ingest_date", ".staging").kind())
        .isEqualTo(Folder.Kind.HIDDEN);
  }

  @Test
  void foldersThatDoNotParseAreStrayWithTheReason() {
    assertThat(RawLayout.classifyFolder("ingest_date", "ingest_date=garbage"))
        .isEqualTo(Folder.stray("'garbage' is not a date YYYY-MM-DD"));
    assertThat(RawLayout.classifyFolder("ingest_date", "ingest_date=2026-13-45"))
        .isEqualTo(Folder.stray("'2026-13-45' is not a date YYYY-MM-DD"));
    assertThat(RawLayout.classifyFolder("ingest_date", "ingest_date=2026-02-30").problem())
        .isEqualTo("'2026-02-30' is not a date YYYY-MM-DD");
    assertThat(RawLayout.classifyFolder("ingest_date", "ingest_date=2026-1-5").problem())
        .isEqualTo("'2026-1-5' is not a date YYYY-MM-DD");
    assertThat(RawLayout.classifyFolder("ingest_date", "INGEST_DATE=2026-11-21"))
        .isEqualTo(
            Folder.stray("the partition column is 'ingest_date' (names are case-sensitive)"));
    assertThat(RawLayout.classifyFolder("ingest_date", "backup"))
        .isEqualTo(Folder.stray("not a ingest_date=YYYY-MM-DD partition folder"));
  }

  @Test
  void datesAreStrict() {
    assertThat(RawLayout.parseDate("2024-02-29")).isEqualTo(LocalDate.of(2024, 2, 29));
    assertThat(RawLayout.parseDate("2023-02-29")).isNull();
    assertThat(RawLayout.parseDate("+2024-02-29")).isNull();
    assertThat(RawLayout.parseDate("2024-02-29 ")).isNull();
    assertThat(RawLayout.parseDate(null)).isNull();
  }

  @Test
  void reportsLiveInDayFolders() {
    assertThat(
            StateLayout.reportPath(
                StateLayout.RUNS_FOLDER, LocalDate.of(2026, 11, 21), "20261121T010000Z-ab"))
        .isEqualTo("_runs/dt=2026-11-21/20261121T010000Z-ab.json");
    assertThat(StateLayout.parseDayFolder("dt=2026-11-21")).isEqualTo(LocalDate.of(2026, 11, 21));
    assertThat(StateLayout.parseDayFolder("dt=yesterday")).isNull();
    assertThat(StateLayout.parseDayFolder("day=2026-11-21")).isNull();
  }
}
