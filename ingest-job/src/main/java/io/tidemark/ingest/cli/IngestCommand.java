package io.tidemark.ingest.cli;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.kernel.StopRequest;
import io.tidemark.ingest.metrics.CloudWatchPublisher;
import io.tidemark.ingest.metrics.RunEvents;
import io.tidemark.ingest.run.ContractCheck;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.RawSource;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.report.IngestErrorCode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line: {@code tidemark-ingest [--config FILE] [OPTIONS]}. Every option can also be a
 * key of the JSON config file (its long name without the dashes); flags override the file.
 *
 * <p>Exit codes: 0 success (including nothing to do, a batch already committed, and another run
 * holding the table's lease), 2 bad usage or config, 3 a --check that found problems, 4 batch
 * rejected by the validation policy (nothing committed), 1 any other failure.
 */
@Command(
    name = "tidemark-ingest",
    mixinStandardHelpOptions = true,
    version = "tidemark-ingest 0.1.0",
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Incremental, exactly-once ingest of raw Parquet files into a curated Iceberg table.",
      "The dataset comes from a contract: tidemark-ingest --contract tidemark.yaml --dataset orders",
      "(or is declared by --dataset, --raw-root, --key-columns, --change-marker, ...).",
      "Reads only new files (or changed records), quarantines invalid ones, and MERGEs the",
      "rest with a version guard; the checkpoint is committed in the same Iceberg snapshot.",
      ""
    },
    footer = {
      "",
      "Every option can be a key of the --config JSON file (long name without '--'), e.g.",
      "  {\"contract\": \"/data/tidemark.yaml\", \"dataset\": \"orders\", \"state-root\": \"/data/state\",",
      "   \"lookback\": \"2d\", \"catalog-property\": {\"k\": \"v\"}}",
      "Flags given on the command line override the file.",
      "",
      "Exit codes: 0 success (also nothing to do, batch already committed, or another run",
      "            holds the table's lease: see --lease-ttl);",
      "            2 bad usage or config (the message names the option or key and its value);",
      "            3 --check found raw data that does not fit the contract;",
      "            4 batch rejected: invalid ratio above --max-invalid-ratio, nothing committed;",
      "            5 --verified-publish: the batch failed its audit, is held on a branch, nothing",
      "              published (the next run needs --held-batch retry or discard);",
      "            1 any other failure (e.g. another run committed first: rerunning is safe);",
      "            137 only for --crash-at drills."
    })
public final class IngestCommand {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "JSON config file; its keys are these options' long names. Default: none.")
  String config;

  @Option(
      names = "--contract",
      paramLabel = "FILE",
      description =
          "Dataset contract (YAML or JSON; a local path or an s3:// URI) declaring the dataset: raw"
              + " location and layout, columns and types, key, change marker, operation values,"
              + " curated/quarantine/tombstone tables, and the catalog. The options below that"
              + " say where (--raw-root, --raw-location, --table, --warehouse...) override it for"
              + " one run. A contract that cannot load is refused before anything runs (exit 2)."
              + " Default: none (the flags declare the dataset).")
  String contract;

  @Option(
      names = "--dataset",
      paramLabel = "NAME",
      description =
          "The dataset to ingest: one the --contract declares (may be left out when it declares"
              + " one), else the name of the dataset the flags declare (raw sub-folder of"
              + " --raw-root, report and metric dimension). Required without a contract.")
  String dataset;

  @Option(
      names = "--raw-root",
      paramLabel = "PATH",
      description =
          "Raw layer root: the dataset's files are under <raw-root>/<dataset>; a local path or a"
              + " Hadoop URI (s3a://...). Overrides the contract's raw location for one run."
              + " Required without --contract (unless --raw-location is given).")
  String rawRoot;

  @Option(
      names = "--raw-location",
      paramLabel = "PATH",
      description =
          "The dataset's own raw folder (instead of <raw-root>/<dataset>). Overrides the"
              + " contract's raw location for one run. Default: the contract's, else"
              + " <raw-root>/<dataset>.")
  String rawLocation;

  @Option(
      names = "--pipeline",
      description =
          "Pipeline name (report and metric dimension). Default: the contract's, else "
              + DatasetContract.PIPELINE_DEFAULT
              + ".")
  String pipeline;

  @Option(
      names = "--warehouse",
      paramLabel = "PATH",
      description =
          "Local Iceberg warehouse for the embedded catalog (Iceberg JDBC catalog on SQLite"
              + " <warehouse>/catalog.db). Required unless --catalog-property or the contract's"
              + " catalog sets the catalog.")
  String warehouse;

  @Option(
      names = "--catalog-name",
      description =
          "Spark name of the Iceberg catalog. Default: the contract's, else "
              + CatalogSpec.NAME_DEFAULT
              + ".")
  String catalogName;

  @Option(
      names = "--catalog-property",
      paramLabel = "KEY=VALUE",
      description =
          "Iceberg catalog property (repeatable), e.g. type=glue, warehouse=s3://bucket/wh. When"
              + " given, these define the catalog instead of the contract's or the embedded one."
              + " Default: none.")
  Map<String, String> catalogProperties = new LinkedHashMap<>();

  @Option(
      names = "--table",
      paramLabel = "NS.TABLE",
      description =
          "Curated Iceberg table. Default: the contract's, else curated.<dataset>. Overrides the"
              + " contract for one run; its quarantine and tombstone tables follow it.")
  String table;

  @Option(
      names = "--quarantine-table",
      paramLabel = "NS.TABLE",
      description = "Quarantine Iceberg table. Default: <table>_quarantine.")
  String quarantineTable;

  @Option(
      names = "--tombstone-table",
      paramLabel = "NS.TABLE",
      description =
          "Table remembering applied deletes, so an older version arriving after a delete does"
              + " not bring the key back. Default: <table>_tombstones.")
  String tombstoneTable;

  @Option(
      names = "--key-columns",
      paramLabel = "COL[,COL...]",
      description =
          "Without a contract: business key column(s), comma-separated (text keys). Required"
              + " without --contract.")
  String keyColumns;

  @Option(
      names = "--payload-columns",
      paramLabel = "COL[:TYPE][,...]",
      description =
          "Without a contract: payload columns carried to the curated table (and compared by"
              + " the reconciler), each with its type (string, int, long, decimal(p,s), date,"
              + " timestamp, boolean; default string), e.g. name,amount:decimal(12,2). Default:"
              + " none.")
  String payloadColumns;

  @Option(
      names = "--change-marker",
      paramLabel = "COL",
      description =
          "Without a contract: the column ordering versions of a key. Required without"
              + " --contract.")
  String changeMarker;

  @Option(
      names = "--change-marker-type",
      paramLabel = "TYPE",
      description =
          "Without a contract: TIMESTAMP (UTC timestamp or ISO-8601 text) or LONG (a sequence)."
              + " Default: TIMESTAMP.")
  ChangeMarkerType changeMarkerType;

  @Option(
      names = "--operation-column",
      paramLabel = "COL",
      description =
          "Without a contract: the column holding U (upsert) or D (delete); a null means U."
              + " Default: none (every row upserts).")
  String operationColumn;

  @Option(
      names = "--partition-column",
      paramLabel = "NAME",
      description =
          "Without a contract: the name of the raw date partition folders <NAME>=YYYY-MM-DD."
              + " Default: "
              + RawSource.PARTITION_COLUMN_DEFAULT
              + ".")
  String partitionColumn;

  @Option(
      names = "--lookback",
      paramLabel = "DURATION",
      defaultValue = IngestSettings.LOOKBACK_DEFAULT_TEXT,
      description =
          "How far before the checkpoint's partition discovery lists again (late files), and in"
              + " watermark mode how far before the watermark records are kept. ISO-8601 (P2D,"
              + " PT36H) or 2d, 36h. Default: ${DEFAULT-VALUE}.")
  String lookback;

  @Option(
      names = "--discovery",
      paramLabel = "MODE",
      defaultValue = "files",
      description =
          "files: read only new files of the candidate partitions (every record a candidate);"
              + " watermark: re-read candidate partitions, keep records after watermark minus"
              + " lookback (sources that rewrite files). Default: ${DEFAULT-VALUE}.")
  String discovery;

  @Option(
      names = "--max-invalid-ratio",
      paramLabel = "RATIO",
      defaultValue = "" + IngestSettings.MAX_INVALID_RATIO_DEFAULT,
      description =
          "Reject the batch (exit 4, nothing committed) when invalid / candidate records is above"
              + " this, 0..1. Default: ${DEFAULT-VALUE}.")
  double maxInvalidRatio;

  @Option(
      names = "--future-tolerance",
      paramLabel = "DURATION",
      defaultValue = IngestSettings.FUTURE_TOLERANCE_DEFAULT_TEXT,
      description =
          "A timestamp change marker later than now plus this is invalid. Default:"
              + " ${DEFAULT-VALUE}.")
  String futureTolerance;

  @Option(
      names = "--mode",
      paramLabel = "MODE",
      defaultValue = "incremental",
      description =
          "incremental: only what changed since the checkpoint; full-refresh: rebuild the table"
              + " from all raw data (baseline and recovery); backfill: re-read the partitions"
              + " --from..--to and merge them with the version guard, checkpoint untouched;"
              + " replay-quarantine: re-validate quarantined records (--reason, --batch-id,"
              + " --file, --dry-run) and merge the ones now valid; sweep: list every partition and"
              + " process the files no committed batch read (late beyond the lookback); maintain:"
              + " compact the tables' data and delete files, expire old snapshots and remove"
              + " orphan files (--retain-snapshots, --orphan-age), keeping the checkpoint."
              + " Default: ${DEFAULT-VALUE}.")
  String mode;

  @Option(
      names = "--retain-snapshots",
      paramLabel = "DURATION",
      description =
          "Maintain: keep the snapshots committed within this (ISO-8601, e.g. P5D); older ones"
              + " expire, except the last, branch heads and tags (the checkpoint's among them)."
              + " Default: P5D.")
  String retainSnapshots;

  @Option(
      names = "--orphan-age",
      paramLabel = "DURATION",
      description =
          "Maintain: remove files under a table's location that no snapshot references once"
              + " they are this old (at least P1D: a younger one may belong to a commit in"
              + " flight). Default: P3D.")
  String orphanAge;

  @Option(
      names = "--from",
      paramLabel = "DATE",
      description =
          "Backfill: first raw partition to re-read, YYYY-MM-DD, inclusive. Required with --mode"
              + " backfill.")
  String from;

  @Option(
      names = "--to",
      paramLabel = "DATE",
      description =
          "Backfill: last raw partition to re-read, YYYY-MM-DD, inclusive. Required with --mode"
              + " backfill.")
  String to;

  @Option(
      names = "--reason",
      paramLabel = "CODE",
      description =
          "Replay: only quarantined records with this reason code (e.g. FUTURE_CHANGE_MARKER,"
              + " NULL_KEY). Default: any.")
  String reason;

  @Option(
      names = "--batch-id",
      paramLabel = "ID",
      description = "Replay: only records quarantined by this batch. Default: any.")
  String batchId;

  @Option(
      names = "--file",
      paramLabel = "PATH",
      description =
          "Replay: only records from this raw file (its path as the quarantine table shows it)."
              + " Default: any.")
  String file;

  @Option(
      names = "--dry-run",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description =
          "Replay: print what would be merged and what stays quarantined; commit nothing."
              + " Default: ${DEFAULT-VALUE}.")
  boolean dryRun;

  @Option(
      names = "--check",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description =
          "Check the raw location against the contract and ingest nothing: which files match the"
              + " layout and which entries are strays, each file's columns and types against the"
              + " declaration, how many rows would be quarantined and why. Exit 0 when clean, 3"
              + " otherwise. Default: ${DEFAULT-VALUE}.")
  boolean check;

  @Option(
      names = "--state-root",
      paramLabel = "PATH",
      description =
          "Where run reports go: <state-root>/_runs/dt=YYYY-MM-DD/<run-id>.json. Required, except by"
              + " --check, which writes nothing.")
  String stateRoot;

  @Option(
      names = "--run-id",
      paramLabel = "ID",
      description = "The run's id. Default: generated from the start time.")
  String runId;

  @Option(
      names = "--log-format",
      paramLabel = "FORMAT",
      defaultValue = "text",
      description =
          "text: the logging configuration of the platform (or, locally, log4j2.properties); json:"
              + " one JSON object per line from here on (log4j2's JSON template layout), Tidemark's"
              + " lines at INFO and others at WARN, each line of the run naming its runId, dataset"
              + " and mode under \"mdc\". Default: ${DEFAULT-VALUE}.")
  String logFormat;

  @Option(
      names = "--lease-ttl",
      paramLabel = "DURATION",
      defaultValue = IngestSettings.LEASE_TTL_DEFAULT_TEXT,
      description =
          "With a state root on S3, a run holds a lease on the table (<state-root>/_leases/"
              + "<table>.json, conditional writes) renewed every third of this; a second run exits"
              + " 0 naming the holder; a crashed holder's lease lapses after this. 0: no lease."
              + " Default: ${DEFAULT-VALUE}.")
  String leaseTtl;

  @Option(
      names = "--cloudwatch",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description =
          "Publish the run's metrics to CloudWatch (on by itself when --cloudwatch-endpoint is"
              + " given). Default: ${DEFAULT-VALUE}.")
  boolean cloudWatch;

  @Option(
      names = "--cloudwatch-endpoint",
      paramLabel = "URL",
      description = "CloudWatch endpoint override, e.g. a local emulator. Default: AWS.")
  String cloudWatchEndpoint;

  @Option(
      names = "--cloudwatch-namespace",
      paramLabel = "NS",
      defaultValue = CloudWatchPublisher.Settings.NAMESPACE_DEFAULT,
      description = "CloudWatch namespace. Default: ${DEFAULT-VALUE}.")
  String cloudWatchNamespace;

  @Option(
      names = "--cloudwatch-region",
      paramLabel = "REGION",
      description = "AWS region for CloudWatch. Default: $AWS_REGION, else us-east-1.")
  String cloudWatchRegion;

  @Option(
      names = "--events",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description =
          "Put a 'Tidemark Ingest Run Finished' event (source tidemark) on EventBridge when the run"
              + " ends, whatever its status: the status, counts, error and report location (on by"
              + " itself when --events-endpoint is given). A put that fails is logged; the run's"
              + " outcome stands. Default: ${DEFAULT-VALUE}.")
  boolean events;

  @Option(
      names = "--events-bus",
      paramLabel = "NAME",
      defaultValue = RunEvents.Settings.BUS_DEFAULT,
      description = "The event bus's name or ARN. Default: ${DEFAULT-VALUE}.")
  String eventsBus;

  @Option(
      names = "--events-endpoint",
      paramLabel = "URL",
      description = "EventBridge endpoint override, e.g. a local emulator. Default: AWS.")
  String eventsEndpoint;

  @Option(
      names = "--events-region",
      paramLabel = "REGION",
      description = "AWS region for EventBridge. Default: the SDK's ($AWS_REGION).")
  String eventsRegion;

  @Option(
      names = "--openlineage-url",
      paramLabel = "URL",
      description =
          "Send the run's OpenLineage event (job ingest.<pipeline>.<dataset>: raw in, curated and"
              + " quarantine out, with their row counts) to this OpenLineage HTTP endpoint's base"
              + " URL, e.g. Marquez's; its bearer token from $TIDEMARK_OPENLINEAGE_API_KEY."
              + " Default: no lineage.")
  String openLineageUrl;

  @Option(
      names = "--openlineage-file",
      paramLabel = "PATH",
      description =
          "Append the run's OpenLineage event to this local file, one JSON line, instead of"
              + " --openlineage-url. Default: no lineage.")
  String openLineageFile;

  @Option(
      names = "--openlineage-namespace",
      paramLabel = "NS",
      defaultValue = io.tidemark.model.lineage.LineageNames.NAMESPACE_DEFAULT,
      description = "The OpenLineage namespace of the job. Default: ${DEFAULT-VALUE}.")
  String openLineageNamespace;

  @Option(
      names = "--verified-publish",
      paramLabel = "URL",
      description =
          "Publish the batch to main only once the reconciler service at this URL has audited the"
              + " run's branch (POST /api/datasets/<dataset>/audits: the record-level rules, FULL,"
              + " against raw as the run listed it) and it PASSED. On FAILED nothing is published,"
              + " the branch is held as tidemark_held_<...> and the run exits 5; if the reconciler"
              + " gives no verdict the run fails (exit 1) and rerunning is safe. The service's API"
              + " key from $TIDEMARK_RECONCILER_API_KEY. Default: publish without an audit.")
  String verifiedPublish;

  @Option(
      names = "--reconciler-api-key-file",
      paramLabel = "PATH",
      description =
          "A file holding the reconciler's API key for --verified-publish, on one line: a local"
              + " path or an s3:// URI, for where the job has no environment of its own (a Glue"
              + " job: keep it in an encrypted object only the job's role may read). Default: the"
              + " key from $TIDEMARK_RECONCILER_API_KEY.")
  String reconcilerApiKeyFile;

  @Option(
      names = "--audit-timeout",
      paramLabel = "DURATION",
      defaultValue = "PT30M",
      description = "How long to wait for the audit's verdict. Default: ${DEFAULT-VALUE}.")
  String auditTimeout;

  @Option(
      names = "--held-batch",
      paramLabel = "retry|discard",
      description =
          "What to do with a batch a failed audit left held: retry (audit the held branch again,"
              + " needs --verified-publish, and publish it on PASSED; the run ends there) or"
              + " discard (drop it; the run then ingests its files again). Default: refuse to run"
              + " while a batch is held (exit 2, naming the branch).")
  String heldBatch;

  @Option(
      names = "--deployment",
      paramLabel = "NAME",
      description =
          "The deployment every event names (the stack's DeploymentName), so that event rules of"
              + " several deployments in one account each match their own. Default: none.")
  String deployment;

  @Option(
      names = "--spark-master",
      paramLabel = "URL",
      description =
          "Spark master. Default: the launcher's (spark-submit, Glue), else local[*] on loopback.")
  String sparkMaster;

  @Option(
      names = "--crash-at",
      paramLabel = "POINT",
      description =
          "Failure drill: halt the JVM (exit 137, as if killed: no cleanup, no report) when the run"
              + " reaches POINT: ${COMPLETION-CANDIDATES}. For recovery drills and demos, never"
              + " in production. Default: none.")
  FailurePoint crashAt;

  @Option(
      names = "--pause-at",
      paramLabel = "POINT",
      description =
          "Stop drill: when the run reaches POINT (${COMPLETION-CANDIDATES}), print a line saying"
              + " so and wait there until the process is sent SIGTERM. For stop drills and tests,"
              + " never in production. Default: none.")
  FailurePoint pauseAt;

  /** The exit status of a crash drill, as a process killed with SIGKILL would have. */
  public static final int CRASH_EXIT_CODE = 137;

  /** A hook that halts (through {@code halt}) when the run reaches {@code at}. */
  static FailurePoints crashDrill(FailurePoint at, IntConsumer halt) {
    return FailurePoints.withBatchId(
        (point, batchId) -> {
          if (point == at) {
            System.err.println(
                "tidemark-ingest: crash drill at "
                    + point
                    + " (batch "
                    + batchId
                    + "): halting now");
            System.err.flush();
            halt.accept(CRASH_EXIT_CODE);
          }
        });
  }

  /** An installed signal handler; closing it puts the previous one back. */
  interface Handler extends AutoCloseable {
    @Override
    void close();
  }

  /** A hook that waits at {@code at} until {@code stop} is requested, after saying so. */
  static FailurePoints pauseDrill(FailurePoint at, StopRequest stop) {
    return FailurePoints.withBatchId(
        (point, batchId) -> {
          if (point == at) {
            System.err.println(
                "tidemark-ingest: pause drill at "
                    + point
                    + " (batch "
                    + batchId
                    + "): waiting for SIGTERM");
            System.err.flush();
            try {
              stop.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
  }

  /**
   * Makes SIGTERM request {@code stop} while a run is under way, instead of the JVM's default (run
   * the shutdown hooks and exit, which would stop Spark under the run and leave no report): the run
   * then stops at its next point, writes its report and releases its lease, and the command
   * returns. A second SIGTERM halts at once (exit 143). Closing restores the previous handler.
   */
  static Handler onSigterm(StopRequest stop) {
    sun.misc.Signal term = new sun.misc.Signal("TERM");
    sun.misc.SignalHandler previous;
    try {
      previous =
          sun.misc.Signal.handle(
              term,
              sig -> {
                if (stop.request("SIG" + sig.getName())) {
                  System.err.println(
                      "tidemark-ingest: SIG"
                          + sig.getName()
                          + ": stopping the run; its report says what was committed (send it"
                          + " again to halt now)");
                } else {
                  System.err.println("tidemark-ingest: SIG" + sig.getName() + " again: halting");
                  System.err.flush();
                  Runtime.getRuntime().halt(IngestErrorCode.STOPPED_BY_SIGTERM.exitCode());
                }
                System.err.flush();
              });
    } catch (IllegalArgumentException e) {
      // The JVM does not let SIGTERM be handled here (e.g. -Xrs): keep its default.
      return () -> {};
    }
    return () -> sun.misc.Signal.handle(term, previous);
  }

  /** Runs the command line and returns the exit code; never calls System.exit. */
  public static int run(String[] args, PrintWriter out, PrintWriter err, SessionFactory sessions) {
    IngestCommand cmd = new IngestCommand();
    CommandLine cl = new CommandLine(cmd).setOverwrittenOptionsAllowed(true);
    cl.setOut(out);
    cl.setErr(err);
    Integer ended = parse(cl, args, out, err);
    if (ended != null) {
      return ended;
    }
    switch (cmd.logFormat) {
      case "text", "json" -> {}
      default -> {
        err.println(
            "Cannot start ingest: --log-format must be text or json, not '" + cmd.logFormat + "'");
        err.flush();
        return IngestErrorCode.INVALID_CONFIG.exitCode();
      }
    }
    IngestSettings settings;
    try {
      settings = cmd.settings();
    } catch (InvalidDocumentException e) {
      err.println("Cannot start ingest: " + e.getMessage());
      err.flush();
      return IngestErrorCode.INVALID_CONFIG.exitCode();
    }
    SparkSession spark = sessions.create(settings, cmd.sparkMaster);
    if (cmd.logFormat.equals("json")) {
      // After the session: starting it puts Spark's own logging configuration back.
      JsonLogs.install();
    }
    if (cmd.check) {
      return ContractCheck.check(spark, settings, out).clean()
          ? 0
          : ContractCheck.PROBLEMS_EXIT_CODE;
    }
    StopRequest stop = new StopRequest();
    FailurePoints hook = cmd.drills(stop);
    IngestOutcome outcome;
    try (Handler sigterm = onSigterm(stop)) {
      outcome = new IngestJob(spark, settings, hook, stop).run();
    }
    RunSummary.print(outcome, out, err);
    return outcome.exitCode();
  }

  /**
   * Parses the config file and the arguments into {@code cl}; the exit code when the command ends
   * here (bad usage or config, help, version), null to run.
   */
  private static Integer parse(CommandLine cl, String[] args, PrintWriter out, PrintWriter err) {
    List<String> all;
    try {
      all = new ArrayList<>(ConfigFile.args(cl, ConfigFile.path(args)));
    } catch (InvalidDocumentException e) {
      err.println(e.getMessage());
      err.flush();
      return IngestErrorCode.INVALID_CONFIG.exitCode();
    }
    all.addAll(Arrays.asList(args));
    try {
      cl.parseArgs(all.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      err.println(e.getMessage());
      err.println("Try 'tidemark-ingest --help' for every option and its default.");
      err.flush();
      return IngestErrorCode.INVALID_CONFIG.exitCode();
    }
    if (cl.isUsageHelpRequested()) {
      cl.usage(out);
      out.flush();
      return 0;
    }
    if (cl.isVersionHelpRequested()) {
      cl.printVersionHelp(out);
      out.flush();
      return 0;
    }
    return null;
  }

  /** The drills the options ask for: a crash, a pause until SIGTERM. */
  private FailurePoints drills(StopRequest stop) {
    FailurePoints crash =
        crashAt == null
            ? FailurePoints.none()
            : crashDrill(crashAt, code -> Runtime.getRuntime().halt(code));
    FailurePoints pause = pauseAt == null ? FailurePoints.none() : pauseDrill(pauseAt, stop);
    return FailurePoints.withBatchId(
        (point, batchId) -> {
          crash.reached(point, batchId);
          pause.reached(point, batchId);
        });
  }

  /** Makes the Spark session a run uses, from the settings and the --spark-master option. */
  @FunctionalInterface
  public interface SessionFactory {
    SparkSession create(IngestSettings settings, String sparkMaster);
  }

  public static void main(String[] args) {
    System.exit(runWithOwnSession(IngestCommand::run, args));
  }

  /** How a command line runs: {@link #run(String[], PrintWriter, PrintWriter, SessionFactory)}. */
  @FunctionalInterface
  interface Runner {
    int run(String[] args, PrintWriter out, PrintWriter err, SessionFactory sessions);
  }

  /**
   * Runs a command line on the console with the CLI's own Spark session (see {@link
   * #defaultSession}), stopped at the end; returns the exit code.
   */
  static int runWithOwnSession(Runner runner, String[] args) {
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    SparkSession[] started = new SparkSession[1];
    try {
      return runner.run(
          args,
          out,
          err,
          (settings, master) -> {
            started[0] = defaultSession(settings, master);
            return started[0];
          });
    } finally {
      if (started[0] != null) {
        started[0].stop();
      }
    }
  }

  /** The CLI's own session: the given or launcher's master, else local[*] on loopback. */
  static SparkSession defaultSession(IngestSettings s, String sparkMaster) {
    String master = sparkMaster;
    if (master == null && System.getProperty("spark.master") == null) {
      master = "local[*]";
    }
    SparkSession.Builder b = IngestSpark.builder(s.catalog(), master);
    if (master != null && master.startsWith("local")) {
      b.config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "8");
    }
    return b.getOrCreate();
  }

  /** Builds and validates the settings; errors name the option and its value. */
  IngestSettings settings() {
    return new CommandSettings(this).build();
  }
}
