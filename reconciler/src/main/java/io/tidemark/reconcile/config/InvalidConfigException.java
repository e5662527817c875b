package io.tidemark.reconcile.config;

import io.tidemark.model.json.InvalidDocumentException;

/** A configuration value the service cannot run with; the message names the full key. */
public class InvalidConfigException extends IllegalArgumentException {
  private final String key;

  public InvalidConfigException(String key, Object value, String reason) {
    super(
        "Cannot start the reconciler: config key '"
            + key
            + "'"
            + (value == null ? "" : " has invalid value '" + value + "'")
            + ": "
            + reason);
    this.key = key;
  }

  public InvalidConfigException(String key, Object value, InvalidDocumentException cause) {
    super("Cannot start the reconciler: config key '" + key + "': " + cause.getMessage(), cause);
    this.key = key;
  }

  /** The offending key, e.g. {@code tidemark.datasets.customers.key-columns[0]}. */
  public String key() {
    return key;
  }
}
