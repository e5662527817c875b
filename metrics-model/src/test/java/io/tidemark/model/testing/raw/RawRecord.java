package io.tidemark.model.testing.raw;

import java.time.Instant;

/**
 * One raw customer row as the source exports it. Any field may be null or wrong: the generator
 * writes invalid rows on purpose.
 */
public record RawRecord(
    String customerId, String customerName, String email, Instant updatedAt, String op) {}
