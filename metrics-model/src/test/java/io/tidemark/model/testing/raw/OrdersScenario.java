package io.tidemark.model.testing.raw;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * An {@code orders} table as AWS DMS exports it to S3: a full load ({@code LOAD00000001.parquet},
 * no {@code Op} column), then CDC files named by their time in {@code YYYY/MM/DD} folders, whose
 * {@code Op} is {@code I}, {@code U} or {@code D}. The key is composite ({@code order_id} text,
 * {@code line_nr} int); {@code amount} is a {@code decimal(12,2)}, {@code order_date} a date,
 * {@code paid} a boolean, and the change marker {@code change_seq} a sequence (the source's log
 * position). The expected curated state is computed here, in plain Java, never with the job's code:
 * per key the row of the highest sequence, gone when that row is a delete.
 */
public final class OrdersScenario {
  /** The contract of this dataset, as a user would write it; {@code RAW} is the raw folder. */
  public static final String CONTRACT =
      """
        orders:
          pipeline: sales
          raw:
            location: RAW
            layout: {kind: dms, date-folders: YYYY/MM/DD}
          columns:
            Op: string
            order_id: string
            line_nr: int
            amount: decimal(12,2)
            order_date: date
            paid: boolean
            change_seq: long
          key-columns: [order_id, line_nr]
          compared-columns: [amount, order_date, paid]
          change-marker: {column: change_seq, type: sequence}
          operation: {column: Op, upsert: [I, U], delete: [D]}
          curated:
            table: curated.orders
            partition-by: [month(order_date)]
          reconcile:
            schedule: "off"
            sample-columns: [order_id, line_nr]
            rules:
              freshness: {threshold: 31536000}
              aggregate_match: {columns: [amount, order_date]}
              amounts_match_raw:
                kind: custom_sql
                sql: SELECT c.key FROM curated c JOIN raw_latest r ON r.key = c.key WHERE c.amount <> r.amount
      """;

  /**
   * A second dataset beside the orders (a block of {@code datasets:}): one head per order, key
   * {@code order_id}, as a DMS export of an orders header table; {@code RAW} is its raw folder.
   */
  public static final String HEADS_CONTRACT =
      """
        order_heads:
          raw:
            location: RAW
            layout: {kind: dms}
          columns: {order_id: string, head_seq: long}
          key-columns: [order_id]
          compared-columns: []
          change-marker: {column: head_seq, type: sequence}
          curated: {table: curated.order_heads}
          reconcile: {schedule: "off"}
      """;

  /**
   * The orders' rule that each line's order is a live head of {@link #HEADS_CONTRACT}: a line of
   * the rules of {@link #CONTRACT} (or of a contract laid out alike).
   */
  public static final String HEAD_KNOWN =
      "        head_known: {kind: referential_integrity, columns: [order_id], references:"
          + " order_heads}\n";

  /**
   * A contract of orders laid out as {@link #CONTRACT} with {@link #HEAD_KNOWN} among its rules.
   */
  public static String withHeadKnown(String contract) {
    if (!contract.contains("      rules:\n")) {
      throw new IllegalArgumentException("no rules: section to add head_known to");
    }
    return contract.replace("      rules:\n", "      rules:\n" + HEAD_KNOWN);
  }

  /** One row as DMS writes it; {@code op} null in a full-load file, which has no such column. */
  public record Order(
      String op,
      String orderId,
      int lineNr,
      BigDecimal amount,
      LocalDate orderDate,
      boolean paid,
      long changeSeq) {
    public String key() {
      return orderId + "|" + lineNr;
    }
  }

  /**
   * One raw file: its path under the dataset's folder, whether it carries {@code Op}, and when DMS
   * wrote it (its modification time: a full load lands before the changes that follow it).
   */
  public record OrderFile(
      String relativePath, boolean fullLoad, java.time.Instant landedAt, List<Order> rows) {
    public OrderFile {
      rows = List.copyOf(rows);
    }
  }

  private static final DateTimeFormatter CDC_NAME = DateTimeFormatter.ofPattern("yyyyMMdd");

  private final List<List<OrderFile>> days = new ArrayList<>();

  /**
   * @param orders how many orders the full load holds (1–3 lines each)
   * @param changeDays how many days of CDC files follow
   */
  public OrdersScenario(int orders, int changeDays, long seed, LocalDate firstDay) {
    Random random = new Random(seed);
    long seq = 1_000;
    Map<String, Order> live = new TreeMap<>();
    List<Order> load = new ArrayList<>();
    for (int o = 1; o <= orders; o++) {
      int lines = 1 + random.nextInt(3);
      for (int l = 1; l <= lines; l++) {
        Order row =
            new Order(
                null,
                orderId(o),
                l,
                amount(random),
                firstDay.minusDays(random.nextInt(60)),
                random.nextBoolean(),
                seq++);
        load.add(row);
        live.put(row.key(), row);
      }
    }
    days.add(List.of(new OrderFile("LOAD00000001.parquet", true, at(firstDay), load)));
    int nextOrder = orders + 1;
    for (int d = 1; d <= changeDays; d++) {
      LocalDate day = firstDay.plusDays(d);
      List<Order> cdc = new ArrayList<>();
      List<String> keys = new ArrayList<>(live.keySet());
      for (int i = 0; i < Math.max(3, orders / 20); i++) {
        Order was = live.get(keys.get(random.nextInt(keys.size())));
        if (was == null) {
          continue; // deleted earlier today
        }
        if (random.nextInt(5) == 0) {
          Order gone =
              new Order(
                  "D",
                  was.orderId(),
                  was.lineNr(),
                  was.amount(),
                  was.orderDate(),
                  was.paid(),
                  seq++);
          cdc.add(gone);
          live.remove(was.key());
        } else {
          // Two updates of one key in one file: the higher sequence wins.
          Order first =
              new Order(
                  "U", was.orderId(), was.lineNr(), amount(random), was.orderDate(), true, seq++);
          Order second =
              new Order(
                  "U",
                  was.orderId(),
                  was.lineNr(),
                  first.amount().add(BigDecimal.ONE),
                  was.orderDate(),
                  random.nextBoolean(),
                  seq++);
          cdc.add(first);
          cdc.add(second);
          live.put(was.key(), second);
        }
      }
      for (int i = 0; i < Math.max(2, orders / 50); i++) {
        Order born = new Order("I", orderId(nextOrder++), 1, amount(random), day, false, seq++);
        cdc.add(born);
        live.put(born.key(), born);
      }
      String folder =
          day.getYear() + "/" + two(day.getMonthValue()) + "/" + two(day.getDayOfMonth());
      days.add(
          List.of(
              new OrderFile(
                  folder
                      + "/"
                      + CDC_NAME.format(day)
                      + "-060000"
                      + String.format("%03d", d)
                      + ".parquet",
                  false,
                  at(day),
                  cdc)));
    }
  }

  private static java.time.Instant at(LocalDate day) {
    return day.atTime(6, 0).toInstant(java.time.ZoneOffset.UTC);
  }

  private static String two(int v) {
    return v < 10 ? "0" + v : Integer.toString(v);
  }

  private static String orderId(int o) {
    return String.format("O-%05d", o);
  }

  /** Amounts with cents that a double would not hold exactly, e.g. 1234567.89. */
  private static BigDecimal amount(Random random) {
    return BigDecimal.valueOf(random.nextLong(1, 9_999_999_999L), 2)
        .setScale(2, RoundingMode.UNNECESSARY);
  }

  /** The files of each delivery: day 0 the full load, then one CDC file a day. */
  public List<List<OrderFile>> days() {
    return days;
  }

  /** Per key ({@code order_id|line_nr}) the live row after the given deliveries, from raw alone. */
  public static Map<String, Order> expected(List<OrderFile> landed) {
    Map<String, Order> latest = new TreeMap<>();
    for (OrderFile f : landed) {
      for (Order r : f.rows()) {
        Order was = latest.get(r.key());
        if (was == null || r.changeSeq() > was.changeSeq()) {
          latest.put(r.key(), r);
        }
      }
    }
    latest.values().removeIf(r -> "D".equals(r.op()));
    // The curated table holds the row, not the operation that wrote it.
    latest.replaceAll(
        (k, r) ->
            new Order(
                null, r.orderId(), r.lineNr(), r.amount(), r.orderDate(), r.paid(), r.changeSeq()));
    return latest;
  }

  /** A full load's columns: DMS writes no {@code Op} there. */
  public static final List<RawColumn> FULL_LOAD =
      List.of(
          RawColumn.of("order_id", "VARCHAR"),
          RawColumn.of("line_nr", "INTEGER"),
          RawColumn.of("amount", "DECIMAL(12,2)"),
          RawColumn.of("order_date", "DATE"),
          RawColumn.of("paid", "BOOLEAN"),
          RawColumn.of("change_seq", "BIGINT"));

  /** A CDC file's columns: {@code Op} first, as DMS writes it. */
  public static final List<RawColumn> CDC =
      java.util.stream.Stream.concat(
              java.util.stream.Stream.of(RawColumn.of("Op", "VARCHAR")), FULL_LOAD.stream())
          .toList();

  /**
   * Writes the files as DMS would, through the kit's raw writer, each landed at its time; returns
   * their paths.
   */
  public static List<Path> write(Path datasetRoot, List<OrderFile> files) {
    List<Path> written = new ArrayList<>();
    try (RawFileWriter w = new RawFileWriter()) {
      for (OrderFile f : files) {
        List<List<?>> rows = new ArrayList<>();
        for (Order r : f.rows()) {
          List<Object> row =
              new ArrayList<>(
                  java.util.Arrays.asList(
                      r.orderId(), r.lineNr(), r.amount(), r.orderDate(), r.paid(), r.changeSeq()));
          if (!f.fullLoad()) {
            row.add(0, r.op());
          }
          rows.add(row);
        }
        Path target =
            w.write(datasetRoot.resolve(f.relativePath()), f.fullLoad() ? FULL_LOAD : CDC, rows);
        written.add(RawFileWriter.landedAt(target, f.landedAt()));
      }
    }
    return written;
  }
}
