package io.tidemark.model.testing.raw;

import java.time.LocalDate;
import java.util.List;

/**
 * What lands in the raw layer before one daily ingest run.
 *
 * @param day the run's day (1 = the initial export)
 * @param runDate the date the run happens
 * @param files the files that land before it, in any partition
 * @param story what is special about this delivery, in words
 */
public record Delivery(int day, LocalDate runDate, List<RawFile> files, String story) {
  public Delivery {
    files = List.copyOf(files);
  }

  public long rows() {
    return files.stream().mapToLong(f -> f.rows().size()).sum();
  }
}
