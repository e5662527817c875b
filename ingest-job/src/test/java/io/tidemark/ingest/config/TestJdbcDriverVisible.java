package io.tidemark.ingest.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.report.IngestErrorCode;
import org.junit.jupiter.api.Test;

/**
 * The embedded catalog's SQLite driver must be visible to the class loader of Iceberg's JDBC
 * catalog, which finds its driver through {@link java.sql.DriverManager}. Under {@code
 * spark-submit} the job jar (which carries the driver) sits in a child class loader that Spark's
 * own jars cannot see: the run must then say so and how to fix it, not fail later reading the table
 * name as a Spark-catalog namespace.
 */
class TestJdbcDriverVisible {
  private static final CatalogSpec EMBEDDED = CatalogSpec.localJdbc("/tmp/tidemark-wh");

  @Test
  void aDriverIcebergsLoaderSeesPasses() {
    IngestSpark.requireJdbcDriverVisible(EMBEDDED, IngestSpark.class.getClassLoader());
  }

  @Test
  void aDriverOnlyTheJobJarCarriesIsRefusedWithTheFix() {
    // The platform class loader sees the JDK's classes only: no SQLite driver, as Spark's own jars
    // see none when the driver is in the job jar.
    assertThatThrownBy(
            () ->
                IngestSpark.requireJdbcDriverVisible(
                    EMBEDDED, ClassLoader.getPlatformClassLoader()))
        .isInstanceOf(IngestException.class)
        .satisfies(
            e -> assertThat(((IngestException) e).code()).isEqualTo(IngestErrorCode.INVALID_CONFIG))
        .hasMessageContaining("org.sqlite.JDBC")
        .hasMessageContaining("--driver-class-path")
        .hasMessageContaining("jdbc:sqlite:");
  }

  @Test
  void aCatalogWithoutJdbcIsNotChecked() {
    CatalogSpec glue =
        new CatalogSpec("glue", java.util.Map.of("type", "glue", "warehouse", "s3://b/w"));
    IngestSpark.requireJdbcDriverVisible(glue, ClassLoader.getPlatformClassLoader());
  }
}
