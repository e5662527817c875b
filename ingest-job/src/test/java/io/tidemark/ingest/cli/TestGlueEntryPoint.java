package io.tidemark.ingest.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Glue's way of calling the job: its own arguments around ours, values as separate arguments. The
 * session factory stops each run before Spark: these tests are about the arguments.
 */
class TestGlueEntryPoint {
  private static final String RUN_ID =
      "jr_8f2f5b7cf6d1c7a3e54b3b0c2c4de6f0a1b2c3d4e5f60718293a4b5c6d7e8f90";

  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();
  final List<IngestSettings> seen = new ArrayList<>();

  /** Runs the entry point; the exit code, or -1 when the options were accepted. */
  int run(String... args) {
    try {
      return GlueEntryPoint.run(
          args,
          new PrintWriter(out, true),
          new PrintWriter(err, true),
          (settings, master) -> {
            seen.add(settings);
            throw new IllegalStateException("stop before Spark");
          });
    } catch (IllegalStateException e) {
      assertThat(e).hasMessage("stop before Spark");
      return -1;
    }
  }

  @Test
  void dropsGluesArgumentsPassesOursAndTakesTheGlueRunIdAsRunId() {
    int code =
        run(
            "--JOB_ID",
            "j_0123456789abcdef",
            "--JOB_RUN_ID",
            RUN_ID,
            "--JOB_NAME",
            "tidemark-ingest-crm-customers",
            "--job-bookmark-option",
            "job-bookmark-disable",
            "--TempDir",
            "s3://aws-glue-assets-123456789012-eu-west-1/temporary/",
            "--enable-glue-datacatalog",
            "true",
            "--enable-metrics",
            "",
            "--datalake-formats",
            "iceberg",
            "--conf",
            "spark.sql.secret=hunter2 --conf spark.x=y",
            "--job-language",
            "scala",
            "--class",
            "TidemarkIngest",
            "--dataset",
            "customers",
            "--key-columns",
            "customer_id",
            "--change-marker",
            "updated_at",
            "--raw-root",
            "s3://acme-lake/raw",
            "--state-root",
            "s3://acme-lake/state",
            "--catalog-property",
            "type=glue",
            "--warehouse",
            "s3://acme-lake/warehouse",
            "--table",
            "lake_db.customers");
    assertThat(code).as("err: %s", err).isEqualTo(-1);
    assertThat(seen).hasSize(1);
    IngestSettings s = seen.get(0);
    assertThat(s.runId()).isEqualTo(RUN_ID);
    assertThat(s.dataset().raw().location()).isEqualTo("s3://acme-lake/raw/customers");
    assertThat(s.stateRoot()).isEqualTo("s3://acme-lake/state");
    assertThat(s.dataset().curatedTable()).isEqualTo("lake_db.customers");
    assertThat(s.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://acme-lake/warehouse");
    assertThat(err.toString())
        .contains("Glue job tidemark-ingest-crm-customers, run " + RUN_ID)
        .contains(
            "ignoring Glue's own arguments: --TempDir, --class, --conf, --datalake-formats,"
                + " --enable-glue-datacatalog, --enable-metrics, --job-bookmark-option,"
                + " --job-language")
        // Values are not logged: --conf may carry secrets.
        .doesNotContain("hunter2")
        .doesNotContain("aws-glue-assets");
  }

  @Test
  void keyEqualsValueWorksForGluesArgumentsAndOurs() {
    int code =
        run(
            "--JOB_RUN_ID=" + RUN_ID,
            "--JOB_NAME=nightly",
            "--TempDir=s3://tmp/",
            "--job-bookmark-option=job-bookmark-disable",
            "--raw-root=s3://acme-lake/raw",
            "--state-root=s3://acme-lake/state",
            "--warehouse=/tmp/wh",
            "--dataset=orders",
            "--key-columns=order_id",
            "--change-marker=seq");
    assertThat(code).as("err: %s", err).isEqualTo(-1);
    IngestSettings s = seen.get(0);
    assertThat(s.runId()).isEqualTo(RUN_ID);
    assertThat(s.dataset().name()).isEqualTo("orders");
    assertThat(s.dataset().keyColumns()).containsExactly("order_id");
    assertThat(err.toString())
        .contains("Glue job nightly, run " + RUN_ID)
        .contains("ignoring Glue's own arguments: --TempDir, --job-bookmark-option");
  }

  @Test
  void anExplicitRunIdWins() {
    run(
        "--JOB_RUN_ID",
        RUN_ID,
        "--run-id",
        "backfill-2024-03",
        "--dataset",
        "customers",
        "--key-columns",
        "customer_id",
        "--change-marker",
        "updated_at",
        "--raw-root",
        "/r",
        "--state-root",
        "/s",
        "--warehouse",
        "/w");
    assertThat(seen)
        .singleElement()
        .extracting(IngestSettings::runId)
        .isEqualTo("backfill-2024-03");
  }

  @Test
  void anUnknownOptionStillFailsWithExitTwoAndNamesIt() {
    int code =
        run(
            "--JOB_RUN_ID",
            RUN_ID,
            "--TempDir",
            "s3://tmp/",
            "--raw-rot",
            "s3://acme-lake/raw",
            "--state-root",
            "s3://acme-lake/state",
            "--warehouse",
            "/w");
    assertThat(code).isEqualTo(2);
    assertThat(seen).isEmpty();
    assertThat(err.toString()).contains("Unknown option").contains("--raw-rot");
  }

  @Test
  void aMissingRequiredOptionIsReportedAsTheCommandReportsIt() {
    assertThat(run("--JOB_RUN_ID", RUN_ID, "--TempDir", "s3://tmp/", "--state-root", "/s"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("Missing required option '--dataset'")
        .contains("--contract FILE");
    assertThat(
            run(
                "--JOB_RUN_ID",
                RUN_ID,
                "--state-root",
                "/s",
                "--dataset",
                "c",
                "--key-columns",
                "id",
                "--change-marker",
                "seq"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option '--raw-root'");
  }

  @Test
  void aGlueRunIdWithoutValueIsABadUsage() {
    assertThat(run("--JOB_RUN_ID", "--raw-root", "/r")).isEqualTo(2);
    assertThat(err.toString()).contains("'--JOB_RUN_ID' needs a value");
    assertThat(seen).isEmpty();
  }

  @Test
  void noneOfGluesArgumentsIsAnOptionOfTheCommand() {
    for (OptionSpec o : new CommandLine(new IngestCommand()).getCommandSpec().options()) {
      for (String name : o.names()) {
        assertThat(GlueEntryPoint.GLUE_PARAMETERS).doesNotContain(name);
        assertThat(GlueEntryPoint.GLUE_IDENTITY).doesNotContain(name);
      }
    }
  }

  @Test
  void helpStillWorksBehindGluesArguments() {
    assertThat(run("--JOB_NAME", "x", "--help")).isZero();
    assertThat(out.toString()).contains("--raw-root");
  }
}
