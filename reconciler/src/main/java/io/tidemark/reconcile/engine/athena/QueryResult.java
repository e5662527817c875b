package io.tidemark.reconcile.engine.athena;

import java.util.List;

/**
 * What one query returned.
 *
 * @param queryId the engine's id of the query, for the logs; null when the engine has none
 * @param rows every row, each value as text (null for SQL NULL)
 * @param bytesScanned bytes the engine read from storage; 0 when it does not say
 */
public record QueryResult(String queryId, List<List<String>> rows, long bytesScanned) {
  public QueryResult {
    rows =
        List.copyOf(
            rows.stream()
                .map(r -> java.util.Collections.unmodifiableList(new java.util.ArrayList<>(r)))
                .toList());
  }
}
