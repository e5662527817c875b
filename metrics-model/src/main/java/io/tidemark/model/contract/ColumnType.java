package io.tidemark.model.contract;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A column's declared type in a dataset contract: {@code string}, {@code int}, {@code long}, {@code
 * decimal(p,s)}, {@code date}, {@code timestamp} or {@code boolean}. The curated table's column
 * takes this type, and a raw file's column must hold it or a type it widens to without loss ({@link
 * #accepts}): an {@code int} file column fills a {@code long} or a wide enough {@code decimal}, a
 * {@code decimal(10,2)} fills a {@code decimal(12,2)}; a floating-point column fills none (it would
 * round a decimal), and nothing converts between text and numbers or dates.
 *
 * <p>Types are named in the contract as above and compared with an engine's column types through
 * {@link #sqlName()}, Spark SQL's {@code simpleString} ({@code string}, {@code int}, {@code
 * bigint}, {@code decimal(12,2)}, {@code date}, {@code timestamp}, {@code boolean}); each engine
 * maps its own type names to those.
 *
 * @param kind the family
 * @param precision a decimal's total digits (1..38); 0 otherwise
 * @param scale a decimal's digits after the point (0..precision); 0 otherwise
 */
public record ColumnType(Kind kind, int precision, int scale) {
  /** Type families. */
  public enum Kind {
    STRING("string", "string"),
    INT("int", "int"),
    LONG("long", "bigint"),
    DECIMAL("decimal", "decimal"),
    DATE("date", "date"),
    TIMESTAMP("timestamp", "timestamp"),
    BOOLEAN("boolean", "boolean");

    private final String contractName;
    private final String sqlName;

    Kind(String contractName, String sqlName) {
      this.contractName = contractName;
      this.sqlName = sqlName;
    }
  }

  /** Every type name a contract accepts, for messages and the JSON Schema. */
  public static final String NAMES = "string, int, long, decimal(p,s), date, timestamp, boolean";

  public static final ColumnType STRING = new ColumnType(Kind.STRING, 0, 0);
  public static final ColumnType INT = new ColumnType(Kind.INT, 0, 0);
  public static final ColumnType LONG = new ColumnType(Kind.LONG, 0, 0);
  public static final ColumnType DATE = new ColumnType(Kind.DATE, 0, 0);
  public static final ColumnType TIMESTAMP = new ColumnType(Kind.TIMESTAMP, 0, 0);
  public static final ColumnType BOOLEAN = new ColumnType(Kind.BOOLEAN, 0, 0);

  private static final int MAX_PRECISION = 38;
  private static final Pattern DECIMAL =
      Pattern.compile("decimal\\(\\s*(\\d{1,2})\\s*,\\s*(\\d{1,2})\\s*\\)");

  public ColumnType {
    Objects.requireNonNull(kind, "kind is null");
    if (kind == Kind.DECIMAL) {
      if (precision < 1 || precision > MAX_PRECISION || scale < 0 || scale > precision) {
        throw new IllegalArgumentException(
            "Cannot make decimal(" + precision + "," + scale + "): need 1 <= s <= p <= 38");
      }
    } else if (precision != 0 || scale != 0) {
      throw new IllegalArgumentException("Cannot give " + kind + " a precision or scale");
    }
  }

  /** A decimal with {@code precision} digits, {@code scale} of them after the point. */
  public static ColumnType decimal(int precision, int scale) {
    return new ColumnType(Kind.DECIMAL, precision, scale);
  }

  /**
   * The type a contract names, in any case ({@code Decimal(12, 2)} is {@code decimal(12,2)}).
   *
   * @throws IllegalArgumentException naming the text and the accepted names
   */
  public static ColumnType parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    Matcher m = DECIMAL.matcher(t);
    if (m.matches()) {
      int p = Integer.parseInt(m.group(1));
      int s = Integer.parseInt(m.group(2));
      if (p < 1 || p > MAX_PRECISION || s > p) {
        throw new IllegalArgumentException(
            "'" + text + "' is not a decimal type: precision 1..38, scale 0..precision");
      }
      return decimal(p, s);
    }
    for (Kind k : Kind.values()) {
      if (k != Kind.DECIMAL && k.contractName.equals(t)) {
        return new ColumnType(k, 0, 0);
      }
    }
    throw new IllegalArgumentException("'" + text + "' is not a column type (" + NAMES + ")");
  }

  /**
   * The type of an engine column named as Spark SQL names it ({@code bigint}, {@code
   * decimal(10,2)}, {@code timestamp_ntz}…); null when the contract has no such type ({@code
   * double}, {@code binary}, nested types).
   */
  public static ColumnType fromSqlName(String sqlName) {
    String t = sqlName == null ? "" : sqlName.trim().toLowerCase(Locale.ROOT);
    if (t.equals("timestamp_ntz")) {
      return TIMESTAMP;
    }
    Matcher m = DECIMAL.matcher(t);
    if (m.matches()) {
      return decimal(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }
    for (Kind k : Kind.values()) {
      if (k != Kind.DECIMAL && k.sqlName.equals(t)) {
        return new ColumnType(k, 0, 0);
      }
    }
    return null;
  }

  /** Spark SQL's name of this type ({@code bigint} for {@code long}). */
  public String sqlName() {
    return kind == Kind.DECIMAL ? "decimal(" + precision + "," + scale + ")" : kind.sqlName;
  }

  /** Whether values of a raw column of type {@code source} fit this type without loss. */
  public boolean accepts(ColumnType source) {
    if (source == null) {
      return false;
    }
    if (source.equals(this)) {
      return true;
    }
    return switch (kind) {
      case LONG -> source.kind == Kind.INT;
      case DECIMAL -> integerDigits(source) <= precision - scale && source.scale <= scale;
      default -> false;
    };
  }

  /** The digits before the point a value of {@code t} may need; MAX+1 when not a number. */
  private static int integerDigits(ColumnType t) {
    return switch (t.kind) {
      case INT -> 10;
      case LONG -> 19;
      case DECIMAL -> t.precision - t.scale;
      default -> MAX_PRECISION + 1;
    };
  }

  /** The name a contract writes: {@code long}, {@code decimal(12,2)}… */
  @Override
  public String toString() {
    return kind == Kind.DECIMAL ? sqlName() : kind.contractName;
  }
}
