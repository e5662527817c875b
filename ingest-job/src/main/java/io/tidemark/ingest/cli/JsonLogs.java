package io.tidemark.ingest.cli;

import java.net.URISyntaxException;
import java.net.URL;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * Switches log4j2 to the job's JSON configuration ({@code tidemark-json-log4j2.properties}) while
 * the job runs. It is read from the job's own jar: under spark-submit, Glue or EMR the jar is not
 * on the class path log4j2 started from, so a {@code -Dlog4j2.configurationFile=classpath:…} would
 * not find it.
 */
final class JsonLogs {
  static final String CONFIGURATION = "/tidemark-json-log4j2.properties";

  private JsonLogs() {}

  static void install() {
    URL url = JsonLogs.class.getResource(CONFIGURATION);
    if (url == null) {
      throw new IllegalStateException(
          "Cannot log JSON: " + CONFIGURATION + " is missing from the job's jar");
    }
    try {
      Configurator.reconfigure(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("Cannot log JSON: " + url + " is not a URI", e);
    }
  }
}
