package io.tidemark.ingest.kernel;

import java.util.Optional;

/** Looking through a failure's causes: Spark and Iceberg wrap what went wrong several times. */
public final class Causes {
  private Causes() {}

  public static boolean has(Throwable e, Class<? extends Throwable> type) {
    return find(e, type).isPresent();
  }

  public static <T extends Throwable> Optional<T> find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return Optional.of(type.cast(t));
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Optional.empty();
  }
}
