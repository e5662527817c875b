package io.tidemark.model.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestLocalPaths {
  private static final String HERE = Path.of("").toAbsolutePath().toString();

  @Test
  void aRelativeLocalPathIsResolvedAgainstTheWorkingFolder() {
    assertThat(LocalPaths.absolute("demo-output/warehouse"))
        .isEqualTo(HERE + "/demo-output/warehouse");
    assertThat(LocalPaths.absolute("./a/../wh/")).isEqualTo(HERE + "/wh");
  }

  @Test
  void absolutePathsAndUrisAreLeftAsTheyAre() {
    assertThat(LocalPaths.absolute("/data/wh")).isEqualTo("/data/wh");
    assertThat(LocalPaths.absolute("s3://bucket/wh")).isEqualTo("s3://bucket/wh");
    assertThat(LocalPaths.absolute("file:/data/wh")).isEqualTo("file:/data/wh");
    assertThat(LocalPaths.isRelative("s3a://bucket/wh")).isFalse();
  }

  @Test
  void aCatalogsRelativeWarehouseAndSqliteFileAreMadeAbsolute() {
    CatalogSpec c = CatalogSpec.localJdbc("wh").withAbsoluteLocalPaths();
    assertThat(c.properties())
        .containsEntry("warehouse", HERE + "/wh")
        .containsEntry("uri", "jdbc:sqlite:" + HERE + "/wh/catalog.db");
    assertThat(LocalPaths.absoluteSqliteUrl("jdbc:sqlite:wh/c.db?journal_mode=WAL"))
        .isEqualTo("jdbc:sqlite:" + HERE + "/wh/c.db?journal_mode=WAL");
    assertThat(LocalPaths.absoluteSqliteUrl("jdbc:sqlite::memory:"))
        .isEqualTo("jdbc:sqlite::memory:");
    assertThat(LocalPaths.absoluteSqliteUrl("jdbc:postgresql://db/x"))
        .isEqualTo("jdbc:postgresql://db/x");
    CatalogSpec glue = new CatalogSpec("t", Map.of("type", "glue", "warehouse", "s3://b/wh"));
    assertThat(glue.withAbsoluteLocalPaths()).isSameAs(glue);
  }
}
