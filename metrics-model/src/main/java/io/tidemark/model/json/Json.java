package io.tidemark.model.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * JSON round trip for the contract's records. Unknown fields are rejected, timestamps are ISO-8601
 * strings, and every failure is an {@link InvalidDocumentException} whose message names the
 * document type, the field path and the value.
 */
public final class Json {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .setSerializationInclusion(JsonInclude.Include.NON_NULL);

  private Json() {}

  /** The shared mapper; callers must not reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "Cannot write " + value.getClass().getSimpleName() + " as JSON: " + e.getMessage(), e);
    }
  }

  public static <T> T read(String json, Class<T> type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (JsonMappingException e) {
      throw invalid(type, e);
    } catch (JsonProcessingException e) {
      throw new InvalidDocumentException(
          "Cannot read " + type.getSimpleName() + ": malformed JSON: " + e.getOriginalMessage(),
          "",
          e);
    }
  }

  public static <T> T read(Path file, Class<T> type) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file + ": " + e.getMessage(), e);
    }
    try {
      return read(text, type);
    } catch (InvalidDocumentException e) {
      throw new InvalidDocumentException(file + ": " + e.getMessage(), e.field(), e);
    }
  }

  /**
   * Writes a document atomically: to a temporary sibling first, then renamed into place, so a
   * reader never sees half a report.
   */
  public static void writeAtomically(Path file, Object value) {
    try {
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
      try {
        Files.writeString(tmp, write(value));
        try {
          Files.move(
              tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  private static InvalidDocumentException invalid(Class<?> type, JsonMappingException e) {
    String path = path(e);
    String prefix = "Cannot read " + type.getSimpleName() + ": ";
    Throwable cause = e.getCause();
    while (cause != null && !(cause instanceof InvalidDocumentException)) {
      cause = cause.getCause();
    }
    if (cause instanceof InvalidDocumentException ide) {
      // A record's own check: its message already names the field relative to the record.
      // A value's own creator (an enum) names the field the path already ends with.
      boolean nested =
          !path.isEmpty() && !path.equals(ide.field()) && !path.endsWith("." + ide.field());
      String field = nested ? path + "." + ide.field() : path.isEmpty() ? ide.field() : path;
      String message = ide.getMessage();
      if (nested) {
        message = message.replaceFirst("^field '", "field '" + path + ".");
      }
      return new InvalidDocumentException(prefix + message, field, e);
    }
    if (e instanceof UnrecognizedPropertyException u) {
      return new InvalidDocumentException(
          prefix + "unknown field '" + path + "' (known: " + u.getKnownPropertyIds() + ")",
          path,
          e);
    }
    if (e instanceof InvalidFormatException f) {
      return new InvalidDocumentException(
          prefix
              + "field '"
              + path
              + "' has invalid value "
              + InvalidDocumentException.quote(f.getValue())
              + ": expected "
              + f.getTargetType().getSimpleName(),
          path,
          e);
    }
    return new InvalidDocumentException(
        prefix + "field '" + path + "': " + e.getOriginalMessage(), path, e);
  }

  private static String path(JsonMappingException e) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference ref : e.getPath()) {
      if (ref.getFieldName() != null) {
        if (!sb.isEmpty()) {
          sb.append('.');
        }
        sb.append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        sb.append('[').append(ref.getIndex()).append(']');
      }
    }
    return sb.toString();
  }
}
