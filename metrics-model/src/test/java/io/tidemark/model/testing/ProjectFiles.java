package io.tidemark.model.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The project's files, for tests that check what is committed (templates). */
public final class ProjectFiles {
  private ProjectFiles() {}

  /** The project root: the {@code tidemark.root} system property, set by the build. */
  public static Path root() {
    String root = System.getProperty("tidemark.root");
    Path p = root != null ? Path.of(root) : Path.of("..");
    return p.toAbsolutePath().normalize();
  }

  /** Every CloudFormation template and dashboard body under dashboards/ and alerts/. */
  public static List<Path> templates() {
    try (Stream<Path> d = Files.list(root().resolve("dashboards"));
        Stream<Path> a = Files.list(root().resolve("alerts"))) {
      return Stream.concat(d, a).filter(p -> p.toString().endsWith(".json")).sorted().toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
