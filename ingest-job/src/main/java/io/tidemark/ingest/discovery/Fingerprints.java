package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.report.IngestErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * Content fingerprints of raw files for stores whose listing gives none (a local or mounted file
 * system): the first 16 bytes of the file's SHA-256, hex. Each costs a read of the whole file, so a
 * run computes one only for a file it is about to read or whose size and modification time match a
 * processed version that has one; each at most once per run.
 */
public final class Fingerprints {
  /** A fingerprint from a checksum of the content. */
  public static final String SHA256 = "sha256=";

  /** A fingerprint the store gave (an S3 ETag). */
  public static final String ETAG = "etag=";

  private final Configuration conf;
  private final Map<String, String> computed = new HashMap<>();
  private final Map<String, FileSystem> fileSystems = new HashMap<>();
  private long bytesRead;

  public Fingerprints(Configuration conf) {
    this.conf = new Configuration(conf);
    // Raw files carry no Hadoop checksum files, and a name with a colon must open literally.
    this.conf.set("fs.file.impl", RawLocalFileSystem.class.getName());
    this.conf.set("fs.file.impl.disable.cache", "true");
  }

  /** The file with its fingerprint: the store's, or one computed from its content. */
  public RawFile of(RawFile f) {
    if (f.fingerprint() != null) {
      return f;
    }
    String fp = computed.computeIfAbsent(f.path() + "\n" + f.stamp(), k -> checksum(f));
    return f.withFingerprint(fp);
  }

  /** How many bytes the checksums of this run read. */
  public long bytesRead() {
    return bytesRead;
  }

  /** How many files this run checksummed. */
  public int filesRead() {
    return computed.size();
  }

  private String checksum(RawFile f) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    Path p = new Path(f.path());
    try {
      // One file system per scheme and authority: the configuration disables Hadoop's cache.
      java.net.URI u = p.toUri();
      String key = u.getScheme() + "://" + u.getAuthority();
      FileSystem fs = fileSystems.get(key);
      if (fs == null) {
        fs = p.getFileSystem(conf);
        fileSystems.put(key, fs);
      }
      byte[] buf = new byte[1 << 16];
      try (InputStream in = fs.open(p)) {
        for (int n; (n = in.read(buf)) > 0; ) {
          sha.update(buf, 0, n);
          bytesRead += n;
        }
      }
    } catch (IOException e) {
      throw new IngestException(
          IngestErrorCode.IO_FAILED,
          "Cannot checksum raw file " + f.path() + " to tell its version: " + e.getMessage(),
          e);
    }
    byte[] digest = sha.digest();
    return SHA256 + HexFormat.of().formatHex(digest, 0, 16);
  }
}
