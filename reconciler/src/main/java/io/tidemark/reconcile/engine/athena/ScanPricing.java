package io.tidemark.reconcile.engine.athena;

import java.util.List;

/**
 * What a query service charges for the bytes its queries scan. Athena bills each query for the
 * bytes it scanned, rounded up to a whole megabyte with a minimum of 10 MB, at a price per terabyte
 * (5 US dollars by default, region-dependent); a TB here is 2^40 bytes.
 *
 * @param usdPerTb the price of a terabyte scanned, not negative
 * @param minimumBytesPerQuery what a query is billed at least
 * @param roundingBytes the unit each query's bytes are rounded up to; at least 1
 */
public record ScanPricing(double usdPerTb, long minimumBytesPerQuery, long roundingBytes) {
  public static final double ATHENA_USD_PER_TB_DEFAULT = 5.0;
  static final long MB = 1L << 20;
  static final double TB = Math.pow(2, 40);

  public ScanPricing {
    if (!(usdPerTb >= 0) || Double.isInfinite(usdPerTb)) {
      throw new IllegalArgumentException("usdPerTb must be 0 or more: " + usdPerTb);
    }
    if (minimumBytesPerQuery < 0 || roundingBytes < 1) {
      throw new IllegalArgumentException(
          "minimumBytesPerQuery must be 0 or more and roundingBytes 1 or more: "
              + minimumBytesPerQuery
              + ", "
              + roundingBytes);
    }
  }

  /** Athena's billing at a price per TB. */
  public static ScanPricing athena(double usdPerTb) {
    return new ScanPricing(usdPerTb, 10 * MB, MB);
  }

  /** A service that charges nothing (a test Trino). */
  public static ScanPricing free() {
    return new ScanPricing(0, 0, 1);
  }

  /** The bytes a query that scanned {@code bytes} is billed for. */
  public long billedBytes(long bytes) {
    long rounded = (bytes + roundingBytes - 1) / roundingBytes * roundingBytes;
    return Math.max(minimumBytesPerQuery, rounded);
  }

  /** The price of queries that scanned the given bytes each, in US dollars. */
  public double costUsd(List<Long> bytesPerQuery) {
    double billed = 0;
    for (long b : bytesPerQuery) {
      billed += billedBytes(b);
    }
    return billed / TB * usdPerTb;
  }
}
