/**
 * The command lines on top of everything: {@code tidemark-ingest} (options, config file, drills,
 * SIGTERM, the summary it prints) and AWS Glue's entry point, which drops Glue's own arguments.
 */
package io.tidemark.ingest.cli;
