package io.tidemark.reconcile.config;

import io.tidemark.model.config.LocalPaths;
import io.tidemark.model.contract.ContractException;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.reconcile.kernel.S3Location;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.Stream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Reads the contract files {@code tidemark.contract} names: one file, or every {@code .yaml},
 * {@code .yml} and {@code .json} file directly in a folder (in name order), on the local file
 * system or on S3. A file's relative locations are resolved against its own folder, as {@link
 * ContractFile} does for the job and the stack.
 */
final class ContractSource {
  static final String KEY = ReconcilerSettings.PREFIX + "contract";

  private ContractSource() {}

  /**
   * The contract files at {@code location}.
   *
   * @param s3 the S3 client, asked for only when the location is an {@code s3://} URI
   * @throws InvalidConfigException when nothing is there, or a file cannot load (with {@link
   *     ContractFile}'s message: the file, the key and the value)
   */
  static List<ContractFile> load(String location, Supplier<S3Client> s3) {
    try {
      return location.startsWith("s3://") ? fromS3(location, s3.get()) : local(location);
    } catch (ContractException e) {
      throw InvalidConfigException.contract(KEY, e);
    }
  }

  static boolean isContractFile(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return !n.startsWith(".") && (n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json"));
  }

  private static List<ContractFile> local(String location) {
    Path path = Path.of(LocalPaths.absolute(location));
    if (!Files.exists(path)) {
      throw new InvalidConfigException(KEY, location, "does not exist");
    }
    if (!Files.isDirectory(path)) {
      return List.of(ContractFile.load(path));
    }
    List<Path> files;
    try (Stream<Path> children = Files.list(path)) {
      files =
          children
              .filter(p -> Files.isRegularFile(p) && isContractFile(p.getFileName().toString()))
              .sorted()
              .toList();
    } catch (IOException e) {
      throw new InvalidConfigException(KEY, location, "cannot be listed: " + e.getMessage());
    }
    if (files.isEmpty()) {
      throw new InvalidConfigException(
          KEY, location, "is a folder without contract files (*.yaml, *.yml, *.json)");
    }
    List<ContractFile> out = new ArrayList<>();
    files.forEach(f -> out.add(ContractFile.load(f)));
    return out;
  }

  private static List<ContractFile> fromS3(String location, S3Client s3) {
    S3Location at = S3Location.parse(location);
    String key = at.prefix().replaceAll("/+$", "");
    try {
      if (isContractFile(key.substring(key.lastIndexOf('/') + 1))) {
        return List.of(read(s3, at.bucket(), key));
      }
      List<String> keys = new ArrayList<>();
      at.listLevel(
          s3,
          at.prefix(),
          o -> {
            if (isContractFile(o.key().substring(o.key().lastIndexOf('/') + 1))) {
              keys.add(o.key());
            }
          },
          folder -> {});
      if (keys.isEmpty()) {
        throw new InvalidConfigException(
            KEY, location, "holds no contract files (*.yaml, *.yml, *.json)");
      }
      List<ContractFile> out = new ArrayList<>();
      keys.stream().sorted().forEach(k -> out.add(read(s3, at.bucket(), k)));
      return out;
    } catch (SdkException e) {
      throw new InvalidConfigException(KEY, location, "cannot be read from S3: " + e.getMessage());
    }
  }

  private static ContractFile read(S3Client s3, String bucket, String key) {
    String text =
        s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asString(StandardCharsets.UTF_8);
    String uri = "s3://" + bucket + "/" + key;
    return ContractFile.parse(uri, text, uri.substring(0, uri.lastIndexOf('/') + 1));
  }
}
