// The Glue job's script (the stack's JobScriptKey). Glue compiles it against the job jar
// (--extra-jars: ingest-job's tidemark-ingest-job-VERSION-glue.jar) and runs the object named by
// --class. It hands every argument to the ingest job's Glue entry point, which drops Glue's own
// (--JOB_NAME, --JOB_RUN_ID, --TempDir...), takes the Glue run id as the run id and runs the
// ingest command with the rest.
object TidemarkIngest {
  def main(sysArgs: Array[String]): Unit =
    io.tidemark.ingest.cli.GlueEntryPoint.main(sysArgs)
}
