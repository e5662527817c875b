/**
 * Picks the engines for the service: builds each from the validated configuration and hands them to
 * CDI. The only package that knows every engine and config together, so that neither has to know
 * the other.
 */
package io.tidemark.reconcile.wiring;
