package io.tidemark.ingest.cli;

import io.tidemark.model.report.IngestErrorCode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The entry point for AWS Glue: the ingest command behind Glue's own job arguments.
 *
 * <p>Glue calls its job's main class with the job's parameters as {@code --key value} pairs, ours
 * (the {@link IngestCommand} options) mixed with its own: the run's identity ({@code --JOB_NAME},
 * {@code --JOB_ID}, {@code --JOB_RUN_ID}, and {@code --WORKFLOW_NAME}/{@code --WORKFLOW_RUN_ID}
 * when a workflow starts the run) and its special parameters ({@code --TempDir}, {@code
 * --job-bookmark-option}, {@code --datalake-formats}, {@code --conf}...). This class drops Glue's
 * arguments with a log line and passes ours to {@link IngestCommand} unchanged, so anything else, a
 * misspelt option included, still fails with exit code 2 and the command's message. {@code
 * --key=value} works for both. Unless {@code --run-id} is given, Glue's run id ({@code
 * --JOB_RUN_ID}) becomes the run's id, so the run report carries the id Glue shows.
 *
 * <p>On success {@link #main} returns (Glue marks the run SUCCEEDED); otherwise it exits with the
 * command's exit code (Glue marks the run FAILED). The Spark session is the launcher's: Glue and
 * {@code spark-submit} set {@code spark.master}.
 */
public final class GlueEntryPoint {
  /** The run's identity: Glue passes these to every run. */
  static final Set<String> GLUE_IDENTITY =
      Set.of("--JOB_NAME", "--JOB_ID", "--JOB_RUN_ID", "--WORKFLOW_NAME", "--WORKFLOW_RUN_ID");

  /**
   * Glue's special job parameters (AWS Glue Developer Guide, "Using job parameters in AWS Glue
   * jobs"): Glue consumes them to set up the run, and passes them to the job as well.
   */
  static final Set<String> GLUE_PARAMETERS =
      Set.of(
          "--additional-python-modules",
          "--auto-scale-within-microbatch",
          "--class",
          "--conf",
          "--continuous-log-conversionPattern",
          "--continuous-log-logGroup",
          "--continuous-log-logStreamPrefix",
          "--customer-driver-env-vars",
          "--customer-executor-env-vars",
          "--datalake-formats",
          "--disable-proxy-v2",
          "--enable-auto-scaling",
          "--enable-continuous-cloudwatch-log",
          "--enable-continuous-log-filter",
          "--enable-glue-datacatalog",
          "--enable-job-insights",
          "--enable-lakeformation-fine-grained-access",
          "--enable-metrics",
          "--enable-observability-metrics",
          "--enable-rename-algorithm-v2",
          "--enable-s3-parquet-optimized-committer",
          "--enable-spark-ui",
          "--encryption-type",
          "--executor-cores",
          "--extra-files",
          "--extra-jars",
          "--extra-py-files",
          "--job-bookmark-option",
          "--job-language",
          "--python-modules-installer-option",
          "--scriptLocation",
          "--spark-event-logs-path",
          "--TempDir",
          "--use-postgres-driver",
          "--user-jars-first",
          "--write-shuffle-files-to-s3",
          "--write-shuffle-spills-to-s3");

  private GlueEntryPoint() {}

  /**
   * The arguments split: ours for the command, Glue's names (values left out: {@code --conf} may
   * carry secrets) for the log.
   */
  record Split(
      List<String> command,
      String jobName,
      String jobRunId,
      List<String> ignored,
      String problem) {}

  /** Splits Glue's arguments from the command's; Glue's are dropped, ours kept as given. */
  static Split split(String[] args) {
    List<String> command = new ArrayList<>();
    List<String> ignored = new ArrayList<>();
    String jobName = null;
    String jobRunId = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      int eq = arg.indexOf('=');
      String name = arg.startsWith("--") && eq > 0 ? arg.substring(0, eq) : arg;
      boolean identity = GLUE_IDENTITY.contains(name);
      if (!identity && !GLUE_PARAMETERS.contains(name)) {
        command.add(arg);
        continue;
      }
      String value = null;
      if (eq > 0 && arg.startsWith("--")) {
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        // Glue passes every parameter as a separate value, an empty one included.
        value = args[++i];
      }
      if (identity && (value == null || value.isBlank())) {
        return new Split(
            command,
            jobName,
            jobRunId,
            ignored,
            "Glue argument '" + name + "' needs a value, e.g. " + name + " jr_0123");
      }
      switch (name) {
        case "--JOB_NAME" -> jobName = value;
        case "--JOB_RUN_ID" -> jobRunId = value;
        default -> {
          if (!identity) {
            ignored.add(name);
          }
        }
      }
    }
    return new Split(command, jobName, jobRunId, ignored, null);
  }

  /** Runs the command behind Glue's arguments and returns its exit code; never exits. */
  public static int run(
      String[] args, PrintWriter out, PrintWriter err, IngestCommand.SessionFactory sessions) {
    Split split = split(args);
    if (split.problem() != null) {
      err.println(split.problem());
      err.flush();
      return IngestErrorCode.INVALID_CONFIG.exitCode();
    }
    if (split.jobName() != null || split.jobRunId() != null) {
      err.println(
          "tidemark-ingest: Glue job "
              + (split.jobName() == null ? "(no --JOB_NAME)" : split.jobName())
              + ", run "
              + (split.jobRunId() == null ? "(no --JOB_RUN_ID)" : split.jobRunId()));
    }
    if (!split.ignored().isEmpty()) {
      err.println(
          "tidemark-ingest: ignoring Glue's own arguments: "
              + String.join(", ", new TreeSet<>(split.ignored())));
    }
    err.flush();
    List<String> command = new ArrayList<>(split.command());
    if (split.jobRunId() != null && !hasOption(command, "--run-id")) {
      command.add("--run-id");
      command.add(split.jobRunId());
    }
    return IngestCommand.run(command.toArray(String[]::new), out, err, sessions);
  }

  private static boolean hasOption(List<String> args, String option) {
    return args.stream().anyMatch(a -> a.equals(option) || a.startsWith(option + "="));
  }

  public static void main(String[] args) {
    int code = IngestCommand.runWithOwnSession(GlueEntryPoint::run, args);
    if (code != 0) {
      System.exit(code);
    }
  }
}
