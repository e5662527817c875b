package io.tidemark.ingest.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The {@code --config} JSON file: its keys are the command's options' long names, and it becomes
 * leading flags, so that flags given on the command line override it. An unknown key is refused
 * with the known ones named.
 */
final class ConfigFile {
  /** The options that are not keys of the file. */
  static final Set<String> NOT_IN_CONFIG = Set.of("config", "help", "version");

  private ConfigFile() {}

  /** The {@code --config} file the arguments name; null when none. */
  static Path path(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config") && i + 1 < args.length) {
        return Path.of(args[i + 1]);
      }
      if (args[i].startsWith("--config=")) {
        return Path.of(args[i].substring("--config=".length()));
      }
    }
    return null;
  }

  /** The config file's settings as leading flags, so flags given later override them. */
  static List<String> args(CommandLine cl, Path file) {
    if (file == null) {
      return List.of();
    }
    Map<String, Object> doc;
    try {
      doc = Json.mapper().readValue(Files.readString(file), new TypeReference<>() {});
    } catch (IOException e) {
      throw new InvalidDocumentException(
          "Cannot read config file " + file + ": " + e.getMessage(), "config", e);
    }
    Set<String> known = new TreeSet<>();
    for (OptionSpec o : cl.getCommandSpec().options()) {
      String name = o.longestName().substring(2);
      if (!NOT_IN_CONFIG.contains(name)) {
        known.add(name);
      }
    }
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Object> e : doc.entrySet()) {
      String key = e.getKey();
      if (!known.contains(key)) {
        throw new InvalidDocumentException(
            "Cannot read config file "
                + file
                + ": unknown key '"
                + key
                + "' (known: "
                + known
                + ")",
            key,
            (Throwable) null);
      }
      Object v = e.getValue();
      if (v instanceof Map<?, ?> m) {
        m.forEach((k, val) -> out.add("--" + key + "=" + k + "=" + val));
      } else if (v instanceof List<?> l) {
        out.add("--" + key + "=" + String.join(",", l.stream().map(String::valueOf).toList()));
      } else if (v == null) {
        throw new InvalidDocumentException(
            "Cannot read config file " + file + ": key '" + key + "' is null",
            key,
            (Throwable) null);
      } else {
        out.add("--" + key + "=" + v);
      }
    }
    return out;
  }
}
