package io.tidemark.e2e;

import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.contract.DatasetContract;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The contract files the demo and the suite run on. They start from the committed example the
 * README shows ({@code examples/demo/tidemark.yaml}, on the test class path), so the suite declares
 * its datasets exactly as a user does, with nothing left to defaults in code.
 */
public final class Contracts {
  /** The demo's contract: {@code customers} in Hive date folders under {@code raw/customers}. */
  public static final String DEMO = "examples/demo/tidemark.yaml";

  private Contracts() {}

  /** The committed example's text. */
  public static String demoText() {
    try (InputStream in = Contracts.class.getClassLoader().getResourceAsStream(DEMO)) {
      if (in == null) {
        throw new IllegalStateException(DEMO + " is not on the test class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes {@code root/tidemark.yaml}: the demo's contract, with more datasets appended (each a
   * block indented by two spaces, as under {@code datasets:}); its relative locations name folders
   * under {@code root}.
   */
  public static Path write(Path root, String... moreDatasets) {
    StringBuilder text = new StringBuilder(demoText());
    if (!text.toString().endsWith("\n")) {
      text.append('\n');
    }
    for (String d : moreDatasets) {
      text.append(d.endsWith("\n") ? d : d + "\n");
    }
    Path file = root.resolve("tidemark.yaml");
    try {
      Files.createDirectories(root);
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file + ": " + e.getMessage(), e);
    }
    return file;
  }

  /**
   * The demo's {@code customers} dataset from the committed example, its raw folder and curated
   * table moved to the given ones (for a benchmark's tables of their own).
   */
  public static DatasetContract customers(String rawLocation, String curatedTable) {
    return ContractFile.parse(DEMO, demoText(), "/")
        .dataset(Pipeline.DATASET)
        .withRawLocation(rawLocation)
        .withCuratedTable(curatedTable);
  }

  /** Loads a contract file as the job and the reconciler do. */
  public static ContractFile load(Path file) {
    return ContractFile.load(file);
  }
}
