package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.model.report.IngestErrorCode;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A dataset's raw folder as Hadoop sees it: its file system and its qualified path, resolved once
 * for every lister.
 */
record RawRoot(FileSystem fs, Path path) {
  /**
   * @throws IngestException INVALID_CONFIG naming the location when Hadoop cannot use it
   */
  static RawRoot of(Configuration conf, String rawLocation) {
    try {
      Path p = new Path(rawLocation);
      FileSystem fs = p.getFileSystem(conf);
      return new RawRoot(fs, fs.makeQualified(p));
    } catch (IOException | IllegalArgumentException e) {
      throw new IngestException(
          IngestErrorCode.INVALID_CONFIG,
          "Cannot use raw location '" + rawLocation + "': " + e.getMessage(),
          e);
    }
  }
}
