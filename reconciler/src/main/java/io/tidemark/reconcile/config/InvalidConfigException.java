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

  private InvalidConfigException(String key, Throwable cause, String message) {
    super(message, cause);
    this.key = key;
  }

  /**
   * A contract that cannot load: the message is the contract's own (the file, the key and the
   * value), after "Cannot start the reconciler: ".
   */
  public static InvalidConfigException contract(String key, RuntimeException cause) {
    return new InvalidConfigException(
        key, cause, "Cannot start the reconciler: " + cause.getMessage());
  }

  /** The offending key, e.g. {@code tidemark.api-keys[0]} or {@code tidemark.contract}. */
  public String key() {
    return key;
  }
}
