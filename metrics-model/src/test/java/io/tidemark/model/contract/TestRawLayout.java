package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.contract.RawLayout.Folder;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.List;
import java.util.Locale;
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
    assertThat(RawLayout.parseDate("0000-01-01")).isEqualTo(LocalDate.of(0, 1, 1));
    assertThat(RawLayout.parseDate("9999-12-31")).isEqualTo(LocalDate.of(9999, 12, 31));
    for (String bad :
        List.of(
            "2024-00-10",
            "2024-13-01",
            "2024-04-31",
            "2024-02-30",
            "2024-01-00",
            "2024/01/01",
            "2024-1-010",
            "２０２４-01-01",
            "-024-01-01",
            "2024-01-+1",
            "20240-1-01",
            "abcd-ef-gh")) {
      assertThat(RawLayout.parseDate(bad)).as(bad).isNull();
    }
  }

  @Test
  void everyDateShapedNameParsesAsTheStrictFormatterSays() {
    DateTimeFormatter strict =
        DateTimeFormatter.ofPattern("uuuu-MM-dd", Locale.ROOT)
            .withResolverStyle(ResolverStyle.STRICT);
    for (int year : new int[] {0, 1, 1900, 2000, 2023, 2024, 9999}) {
      for (int month = 0; month <= 13; month++) {
        for (int day = 0; day <= 32; day++) {
          String text = String.format(Locale.ROOT, "%04d-%02d-%02d", year, month, day);
          LocalDate expected;
          try {
            expected = LocalDate.parse(text, strict);
          } catch (DateTimeParseException e) {
            expected = null;
          }
          assertThat(RawLayout.parseDate(text)).as(text).isEqualTo(expected);
        }
      }
    }
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
