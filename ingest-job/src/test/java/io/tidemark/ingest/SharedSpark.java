package io.tidemark.ingest;

import io.tidemark.ingest.config.IngestSpark;
import org.apache.spark.sql.SparkSession;

/**
 * The one local[2] session every Spark test class of this module uses. Starting Spark and Iceberg's
 * SQL extensions costs seconds per session; tests keep apart by catalog and warehouse, never by
 * session (each test registers a catalog name of its own), so the session is started once per test
 * JVM and stopped when the JVM exits.
 */
public final class SharedSpark {
  private static SparkSession session;

  private SharedSpark() {}

  /** The shared session, started on first use. */
  public static synchronized SparkSession session() {
    if (session == null) {
      SparkSession started = IngestSpark.local(2).getOrCreate();
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "stop-shared-spark"));
      session = started;
    }
    return session;
  }
}
