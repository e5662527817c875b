package io.tidemark.model.contract.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.model.contract.layout.RawListing.PlacedFile;
import java.io.FileNotFoundException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Every layout places the same files on the same days whoever lists them. */
class TestRawListing {
  private static final long DEC_3 = Instant.parse("2026-12-03T10:15:00Z").toEpochMilli();

  /** An in-memory folder tree: paths of files (with a modification time) and of empty folders. */
  private static final class Tree implements RawListing.Lister {
    final Map<String, Long> files = new TreeMap<>();
    final List<String> listed = new ArrayList<>();

    Tree file(String path) {
      return file(path, DEC_3);
    }

    Tree file(String path, long modified) {
      files.put(path, modified);
      return this;
    }

    @Override
    public List<RawListing.Entry> list(String folder) throws FileNotFoundException {
      listed.add(folder);
      String prefix = folder.isEmpty() ? "" : folder + "/";
      Map<String, RawListing.Entry> out = new TreeMap<>();
      boolean exists = folder.isEmpty();
      for (Map.Entry<String, Long> f : files.entrySet()) {
        if (!f.getKey().startsWith(prefix)) {
          continue;
        }
        exists = true;
        String rest = f.getKey().substring(prefix.length());
        int slash = rest.indexOf('/');
        String name = slash < 0 ? rest : rest.substring(0, slash);
        out.putIfAbsent(name, entry(name, slash >= 0, f.getValue()));
      }
      if (!exists) {
        throw new FileNotFoundException(folder);
      }
      return new ArrayList<>(out.values());
    }

    private static RawListing.Entry entry(String name, boolean folder, long modified) {
      return new RawListing.Entry() {
        public String name() {
          return name;
        }

        public boolean isFolder() {
          return folder;
        }

        public long size() {
          return 10;
        }

        public long modifiedMillis() {
          return modified;
        }

        public String fingerprint() {
          return null;
        }
      };
    }
  }

  private static List<String> places(RawListing.Result r) {
    return r.files().stream().map(f -> f.partition() + " " + f.name()).toList();
  }

  private static List<String> strays(RawListing.Result r) {
    return r.strays().stream().map(StrayEntry::toString).toList();
  }

  @Test
  void hiveFoldersKeepTodaysNamesAndReasons() throws Exception {
    Tree t =
        new Tree()
            .file("ingest_date=2026-12-01/a.parquet")
            .file("ingest_date=2026-12-01/_SUCCESS")
            .file("ingest_date=2026-12-02/b.PARQUET")
            .file("ingest_date=2026-12-02/notes.txt")
            .file("ingest_date=2026-12-02/sub/c.parquet")
            .file("ingest_date=garbage/d.parquet")
            .file("INGEST_DATE=2026-12-02/e.parquet")
            .file("stray.parquet")
            .file("_temporary/x.parquet");
    RawListing.Result r =
        RawListing.list(Layout.Dated.hive("ingest_date", "yyyy-MM-dd"), t, null, null);

    assertThat(places(r)).containsExactly("2026-12-01 a.parquet", "2026-12-02 b.PARQUET");
    assertThat(r.files().get(0).relativePath()).isEqualTo("ingest_date=2026-12-01/a.parquet");
    assertThat(strays(r))
        .containsExactlyInAnyOrder(
            "INGEST_DATE=2026-12-02 (the partition column is 'ingest_date' (names are"
                + " case-sensitive))",
            "ingest_date=2026-12-02/notes.txt (not a .parquet data file)",
            "ingest_date=2026-12-02/sub (a folder inside the date folders ingest_date=2026-12-02)",
            "ingest_date=garbage ('garbage' is not a date YYYY-MM-DD)",
            "stray.parquet (a file outside any partition folder)");
    assertThat(r.partitionsListed())
        .containsExactly(LocalDate.of(2026, 12, 1), LocalDate.of(2026, 12, 2));
  }

  @Test
  void aHiveDateFormatAndColumnOfTheUsersOwn() throws Exception {
    Tree t = new Tree().file("dt=20261201/a.parquet").file("dt=2026-12-01/b.parquet");
    RawListing.Result r = RawListing.list(Layout.Dated.hive("dt", "yyyyMMdd"), t, null, null);
    assertThat(places(r)).containsExactly("2026-12-01 a.parquet");
    assertThat(strays(r)).containsExactly("dt=2026-12-01 ('2026-12-01' is not a date YYYYMMDD)");
  }

  @Test
  void aFirehosePathPlacesHoursInTheirDayAndListsOnlyTheWindow() throws Exception {
    Tree t =
        new Tree()
            .file("2025/12/31/23/old.parquet")
            .file("2026/11/30/23/before.parquet")
            .file("2026/12/01/00/a.parquet")
            .file("2026/12/01/13/b.parquet")
            .file("2026/12/02/07/c.parquet")
            .file("2026/12/02/c.parquet")
            .file("2026/13/01/00/bad.parquet");
    RawListing.Result r =
        RawListing.list(Layout.Dated.datePath("YYYY/MM/DD/HH"), t, LocalDate.of(2026, 12, 1), null);

    assertThat(places(r))
        .containsExactly(
            "2026-12-01 00/a.parquet", "2026-12-01 13/b.parquet", "2026-12-02 07/c.parquet");
    assertThat(strays(r))
        .containsExactly(
            "2026/12/02/c.parquet (a file where HH folders belong)",
            "2026/13 (not a MM date folder)");
    // The year and the month before the window are passed over, not listed.
    assertThat(t.listed).doesNotContain("2025", "2026/11");
  }

  @Test
  void dmsFullLoadThenCdcFilesInTheTableFolder() throws Exception {
    long nov30 = Instant.parse("2026-11-30T08:00:00Z").toEpochMilli();
    Tree t =
        new Tree()
            .file("LOAD00000001.parquet", nov30)
            .file("LOAD0000000A.parquet", nov30)
            .file("20261201-1134010000.parquet")
            .file("20261202-0900000001.parquet")
            .file("orders.csv")
            .file("random.parquet");
    RawListing.Result r = RawListing.list(new Layout.Dms(null), t, null, null);

    assertThat(places(r))
        .containsExactly(
            "2026-11-30 LOAD00000001.parquet",
            "2026-11-30 LOAD0000000A.parquet",
            "2026-12-01 20261201-1134010000.parquet",
            "2026-12-02 20261202-0900000001.parquet");
    assertThat(strays(r))
        .containsExactly(
            "orders.csv (not a .parquet data file)",
            "random.parquet (neither a DMS full-load file (LOAD…) nor a CDC file named by time"
                + " (yyyyMMdd-HHmmss…))");

    RawListing.Result window =
        RawListing.list(new Layout.Dms(null), t, LocalDate.of(2026, 12, 2), null);
    assertThat(places(window)).containsExactly("2026-12-02 20261202-0900000001.parquet");
  }

  @Test
  void dmsCdcFilesInDateFolders() throws Exception {
    Tree t =
        new Tree()
            .file("LOAD00000001.parquet")
            .file("2026/12/01/20261201-1134010000.parquet")
            .file("2026/12/02/20261202-0900000001.parquet");
    RawListing.Result r =
        RawListing.list(new Layout.Dms(new DateFolders("YYYY/MM/DD")), t, null, null);
    assertThat(places(r))
        .containsExactly(
            "2026-12-01 20261201-1134010000.parquet",
            "2026-12-02 20261202-0900000001.parquet",
            "2026-12-03 LOAD00000001.parquet");
    assertThat(r.strays()).isEmpty();
  }

  @Test
  void arrivalOrdersAFlatFolderByModificationTime() throws Exception {
    Tree t =
        new Tree()
            .file("export-a.parquet", Instant.parse("2026-12-01T23:59:59Z").toEpochMilli())
            .file("export-b.parquet", Instant.parse("2026-12-02T00:00:00Z").toEpochMilli())
            .file("sub/c.parquet");
    RawListing.Result r = RawListing.list(new Layout.Arrival(), t, null, null);
    assertThat(places(r))
        .containsExactly("2026-12-01 export-a.parquet", "2026-12-02 export-b.parquet");
    assertThat(strays(r))
        .containsExactly("sub (a folder: the arrival layout reads files in the raw location)");
  }

  @Test
  void aMissingRawLocationIsTheListersError() {
    RawListing.Lister none =
        folder -> {
          throw new FileNotFoundException("no such folder: " + folder);
        };
    assertThatThrownBy(() -> RawListing.list(new Layout.Arrival(), none, null, null))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void datePatternsAreChecked() {
    assertThatThrownBy(() -> new DateFolders("YYYY/MM"))
        .hasMessage("'YYYY/MM' must name DD exactly once (with YYYY, MM, DD, HH)");
    assertThatThrownBy(() -> new DateFolders("HH/YYYY/MM/DD"))
        .hasMessage("'HH/YYYY/MM/DD' may name HH once, after DD");
    assertThatThrownBy(() -> new DateFolders("_YYYY/MM/DD"))
        .hasMessage("'_YYYY/MM/DD' names hidden folders (starting with '_' or '.')");
    assertThat(new DateFolders("YYYY/MM/DD/HH").dayPath(LocalDate.of(2026, 1, 2)))
        .isEqualTo("2026/01/02");
    assertThat(DateFolders.hive("ingest_date", "yyyy-MM-dd").dayPath(LocalDate.of(2026, 1, 2)))
        .isEqualTo("ingest_date=2026-01-02");
  }

  @Test
  void placedFilesCarryWhatTheListerSaw() throws Exception {
    Tree t = new Tree().file("ingest_date=2026-12-01/a.parquet");
    PlacedFile f =
        RawListing.list(Layout.Dated.hive("ingest_date", "yyyy-MM-dd"), t, null, null)
            .files()
            .get(0);
    assertThat(f.size()).isEqualTo(10);
    assertThat(f.modifiedMillis()).isEqualTo(DEC_3);
  }
}
