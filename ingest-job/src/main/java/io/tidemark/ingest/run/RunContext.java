package io.tidemark.ingest.run;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.kernel.RunResources;
import io.tidemark.ingest.kernel.RunStart;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.contract.DatasetContract;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * What the steps of one run share.
 *
 * @param spark the caller's session
 * @param settings the run's settings
 * @param trail where the orchestrator records the stages' results
 * @param hooks the run's failure points, which also stop the run when a stop was requested
 * @param resources the Spark resources the run makes
 * @param tables the output tables
 */
record RunContext(
    SparkSession spark,
    IngestSettings settings,
    RunTrail trail,
    FailurePoints hooks,
    RunResources resources,
    OutputTables tables) {

  DatasetContract spec() {
    return settings.dataset();
  }

  RunStart start() {
    return trail.start();
  }

  Configuration hadoop() {
    return spark.sparkContext().hadoopConfiguration();
  }
}
