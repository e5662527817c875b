package io.tidemark.reconcile.engine;

import io.tidemark.model.contract.ReasonCode;
import java.util.Objects;

/**
 * A raw file an engine left out whole, as the ingest job quarantines it whole.
 *
 * @param path the file's path
 * @param reason a whole-file reason code of the contract
 * @param detail what is wrong, in words
 */
public record ExcludedFile(String path, ReasonCode reason, String detail) {
  public ExcludedFile {
    Objects.requireNonNull(path, "path is null");
    Objects.requireNonNull(reason, "reason is null");
    Objects.requireNonNull(detail, "detail is null");
    if (!reason.wholeFile()) {
      throw new IllegalArgumentException("Cannot exclude a file for record-level reason " + reason);
    }
  }

  /** {@code file:<path> (<reason>: <detail>)}. */
  @Override
  public String toString() {
    return "file:" + path + " (" + reason + ": " + detail + ")";
  }
}
