package io.tidemark.model.contract;

/**
 * A contract file that cannot be read or cannot work. The message names the file, the key and the
 * value, e.g. {@code Cannot load contract orders.yaml: datasets.orders.key-columns[1] 'line_nr' is
 * not a column}; the job exits with its configuration code and the service does not start.
 */
public class ContractException extends IllegalArgumentException {
  public ContractException(String message) {
    super(message);
  }

  public ContractException(String message, Throwable cause) {
    super(message, cause);
  }
}
