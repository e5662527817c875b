package io.tidemark.ingest.cli;

import io.tidemark.model.contract.ContractFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * Reads the {@code --contract} file: a local path through {@link ContractFile#load}, a URI ({@code
 * s3://bucket/contract.yaml}, {@code s3a://…}, {@code file:/…}) through Hadoop's {@link
 * FileSystem}, as the job reads everything else, then {@link ContractFile#parse}. It runs before
 * the Spark session exists, so the Hadoop settings are the launcher's {@code spark.hadoop.*}
 * properties, and {@code s3://} is S3A unless they say otherwise.
 */
final class ContractSource {
  private static final Pattern URI_SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]+:/.*");

  private ContractSource() {}

  /**
   * The contract file at {@code location}.
   *
   * @throws io.tidemark.model.contract.ContractException naming the file and what is wrong
   */
  static ContractFile load(String location) {
    if (!URI_SCHEME.matcher(location).matches()) {
      return ContractFile.load(Path.of(location));
    }
    String text;
    try {
      text = read(location);
    } catch (IOException | RuntimeException e) {
      throw new io.tidemark.model.contract.ContractException(
          "Cannot load contract "
              + location
              + ": "
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage(),
          e);
    }
    String base = location.substring(0, location.lastIndexOf('/'));
    return ContractFile.parse(location, text, base);
  }

  /**
   * The text of a small file the command reads before the session exists: a local path, or a URI
   * read through Hadoop's {@link FileSystem}.
   */
  static String read(String location) throws IOException {
    if (!URI_SCHEME.matcher(location).matches()) {
      return java.nio.file.Files.readString(Path.of(location), StandardCharsets.UTF_8);
    }
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(location);
    // A file system of its own, closed after: the run's are made from Spark's configuration.
    try (FileSystem fs = FileSystem.newInstance(p.toUri(), hadoop());
        InputStream in = fs.open(p)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The launcher's Hadoop settings ({@code spark.hadoop.*}), {@code s3://} as S3A by default. */
  static Configuration hadoop() {
    Configuration conf = new Configuration();
    conf.set("fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
    for (Map.Entry<Object, Object> e : System.getProperties().entrySet()) {
      String k = String.valueOf(e.getKey());
      if (k.startsWith("spark.hadoop.")) {
        conf.set(k.substring("spark.hadoop.".length()), String.valueOf(e.getValue()));
      }
    }
    return conf;
  }
}
