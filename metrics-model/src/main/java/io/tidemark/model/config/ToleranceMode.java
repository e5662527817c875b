package io.tidemark.model.config;

/** How the count-match rule measures a difference. */
public enum ToleranceMode {
  /** Observed = |curated - expected| rows. */
  ABSOLUTE,
  /** Observed = |curated / expected - 1|. */
  RATIO
}
