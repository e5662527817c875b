package io.tidemark.reconcile.report;

import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestRunReport;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run reports indexed by day folder ({@code dt=}, the run's start date), each parsed once: a day is
 * listed whenever it is read, and a file is parsed again only when its version (size and
 * modification time, or ETag) changed, so reports the job writes while the service runs are seen,
 * deleted ones drop out, and the cost of {@link #newest} follows its limit, not the history's
 * length. Subclasses say how a store lists days and files and reads a file.
 */
abstract class IndexedRunReports implements RunReportSource {
  /** One report file as its store lists it. */
  protected record StoredFile(String location, String version) {}

  private record Parsed(String version, IngestRunReport report, UnreadableReport unreadable) {}

  private static final Comparator<IngestRunReport> NEWEST_FIRST =
      Comparator.comparing(IngestRunReport::finishedAt)
          .thenComparing(IngestRunReport::runId)
          .reversed();

  /** Per day folder, its files by location. */
  private final Map<LocalDate, Map<String, Parsed>> days = new ConcurrentHashMap<>();

  private final AtomicLong parsed = new AtomicLong();

  /** The day folders of the store, any order; none when the runs folder does not exist. */
  protected abstract List<LocalDate> listDays();

  /** The report files of one day folder (hidden and temporary files left out). */
  protected abstract List<StoredFile> listFiles(LocalDate day);

  /** A report file's text. */
  protected abstract String text(StoredFile file);

  /** How many report files this source has parsed since it was made (each change parses again). */
  public long parsedCount() {
    return parsed.get();
  }

  @Override
  public Listing read(String pipeline, String dataset, Instant from, Instant to) {
    LocalDate fromDate =
        from == null ? null : LocalDate.ofInstant(from, ZoneOffset.UTC).minusDays(1);
    List<IngestRunReport> out = new ArrayList<>();
    List<UnreadableReport> unreadable = new ArrayList<>();
    for (LocalDate day : days()) {
      if (fromDate != null && day.isBefore(fromDate)) {
        continue;
      }
      for (Parsed p : day(day)) {
        if (p.unreadable() != null) {
          unreadable.add(p.unreadable());
          continue;
        }
        IngestRunReport r = p.report();
        boolean inWindow =
            (from == null || r.finishedAt().isAfter(from)) && !r.finishedAt().isAfter(to);
        if (inWindow && r.dataset().equals(dataset) && r.pipeline().equals(pipeline)) {
          out.add(r);
        }
      }
    }
    return new Listing(out, unreadable);
  }

  @Override
  public Listing newest(String pipeline, String dataset, int limit) {
    List<LocalDate> all = new ArrayList<>(days());
    all.sort(Comparator.reverseOrder());
    List<IngestRunReport> out = new ArrayList<>();
    List<UnreadableReport> unreadable = new ArrayList<>();
    LocalDate enough = null;
    for (LocalDate day : all) {
      // A run that started the day before the limit was reached may have ended after those runs.
      if (enough != null && day.isBefore(enough.minusDays(1))) {
        break;
      }
      for (Parsed p : day(day)) {
        if (p.unreadable() != null) {
          unreadable.add(p.unreadable());
        } else if (p.report().dataset().equals(dataset) && p.report().pipeline().equals(pipeline)) {
          out.add(p.report());
        }
      }
      if (enough == null && out.size() >= limit) {
        enough = day;
      }
    }
    out.sort(NEWEST_FIRST);
    return new Listing(out.subList(0, Math.min(limit, out.size())), unreadable);
  }

  @Override
  public List<UnreadableReport> unreadable() {
    List<UnreadableReport> out = new ArrayList<>();
    for (Map<String, Parsed> files : days.values()) {
      files.values().stream().map(Parsed::unreadable).filter(u -> u != null).forEach(out::add);
    }
    out.sort(Comparator.comparing(UnreadableReport::location));
    return out;
  }

  /** A day's files, listed now, each parsed unless its version is the one parsed before. */
  private List<Parsed> day(LocalDate day) {
    Map<String, Parsed> known = days.computeIfAbsent(day, d -> new ConcurrentHashMap<>());
    List<StoredFile> files = listFiles(day);
    Set<String> listed = new HashSet<>();
    List<Parsed> out = new ArrayList<>(files.size());
    for (StoredFile f : files) {
      listed.add(f.location());
      Parsed p = known.get(f.location());
      if (p == null || !f.version().equals(p.version())) {
        p = parse(f);
        if (p.version() != null) {
          known.put(f.location(), p);
        } else {
          known.remove(f.location());
        }
      }
      out.add(p);
    }
    known.keySet().retainAll(listed);
    if (known.isEmpty()) {
      days.remove(day, known);
    }
    return out;
  }

  private Parsed parse(StoredFile f) {
    String text;
    try {
      text = text(f);
    } catch (RuntimeException e) {
      // The store failed, not the document: named now, fetched again next time.
      return new Parsed(null, null, UnreadableReport.of(UnreadableReport.RUN, f.location(), e));
    }
    parsed.incrementAndGet();
    try {
      return new Parsed(f.version(), Json.read(text, IngestRunReport.class), null);
    } catch (RuntimeException e) {
      return new Parsed(
          f.version(), null, UnreadableReport.of(UnreadableReport.RUN, f.location(), e));
    }
  }

  /** The store's day folders now; days it no longer lists leave the index. */
  private List<LocalDate> days() {
    List<LocalDate> listed = listDays();
    days.keySet().retainAll(new HashSet<>(listed));
    return listed;
  }
}
