package io.tidemark.stack;

import static io.tidemark.stack.Cfn.join;
import static io.tidemark.stack.Cfn.selectSplit;
import static io.tidemark.stack.Cfn.sub;
import static io.tidemark.stack.Cfn.text;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.athena.AthenaRawTable;
import io.tidemark.model.contract.athena.AthenaRawTables;
import io.tidemark.model.contract.athena.DateProjection;
import io.tidemark.model.contract.layout.Layout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A dataset's raw layer as Glue tables Athena reads, in CloudFormation's terms: the tables are the
 * contract module's one definition ({@link AthenaRawTables}), which the reconciler renders as DDL
 * and queries too; this class only writes each table's date range from the stack's {@code
 * ProjectionStart} parameter, as CloudFormation functions.
 */
final class RawTables {
  /** The last date projection enumerates: a day ahead of the query, as the reconciler's DDL. */
  static final String PROJECTION_END = DateProjection.END;

  static final String PROJECTION_START_PARAMETER = "ProjectionStart";

  private static final Pattern TOKEN = Pattern.compile("YYYY|MM|DD|HH");

  private RawTables() {}

  /**
   * The dataset's raw table, by the contract's one rule ({@link DatasetContract#rawTableName()}).
   */
  static String name(DatasetContract d) {
    return d.rawTableName();
  }

  /**
   * A partition key.
   *
   * @param name the key, a column of the table
   * @param type its Hive type
   */
  record Key(String name, String type) {}

  /**
   * One raw table of a dataset.
   *
   * @param idSuffix the end of its logical id, after the dataset's prefix
   * @param name the table's name
   * @param description what it reads
   * @param partitionKeys its partition keys; empty when it is not partitioned
   * @param parameters its table parameters beyond Glue's markers: partition projection
   */
  record Table(
      String idSuffix,
      String name,
      String description,
      List<Key> partitionKeys,
      Map<String, JsonNode> parameters) {}

  /**
   * The data columns of a dataset's raw tables, in contract order: lower-case name to Hive type.
   */
  static Map<String, String> columns(DatasetContract d) {
    return AthenaRawTables.columns(d);
  }

  /** The raw tables of a dataset over its location: one, or two for DMS with date folders. */
  static List<Table> tables(DatasetContract d, S3Location raw) {
    List<Table> out = new ArrayList<>();
    for (AthenaRawTable t : AthenaRawTables.tables(d, raw.uri())) {
      out.add(
          new Table(
              t.kind() == AthenaRawTable.Kind.ALL ? "RawTableAll" : "RawTable",
              t.name(),
              t.description(),
              t.partitionKeyNames().stream()
                  .map(k -> new Key(k, AthenaRawTable.PARTITION_KEY_TYPE))
                  .toList(),
              t.parameters(Cfn::text, p -> rangeFromStart(p.pattern()))));
    }
    return out;
  }

  /**
   * {@code <ProjectionStart>,NOW+1DAYS} with the start rewritten from {@code YYYY-MM-DD} into the
   * folders' format: {@code Fn::Split} takes the parameter apart, {@code Fn::Join} writes its year,
   * month and day (and hour 00) where the format has them.
   */
  private static JsonNode rangeFromStart(String dateText) {
    if (dateText.equals("YYYY-MM-DD")) {
      return sub("${" + PROJECTION_START_PARAMETER + "}," + PROJECTION_END);
    }
    List<JsonNode> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    Matcher m = TOKEN.matcher(dateText);
    int last = 0;
    while (m.find()) {
      literal.append(dateText, last, m.start());
      int index =
          switch (m.group()) {
            case "YYYY" -> 0;
            case "MM" -> 1;
            case "DD" -> 2;
            default -> -1;
          };
      if (index < 0) {
        literal.append("00");
      } else {
        if (literal.length() > 0) {
          parts.add(text(literal.toString()));
          literal.setLength(0);
        }
        parts.add(selectSplit(index, "-", PROJECTION_START_PARAMETER));
      }
      last = m.end();
    }
    literal.append(dateText.substring(last)).append(",").append(PROJECTION_END);
    parts.add(text(literal.toString()));
    return join(parts);
  }

  /** The partition keys a layout gives its table, for checks against the data columns. */
  static List<String> partitionKeys(Layout layout) {
    return AthenaRawTables.partitionKeys(layout);
  }
}
