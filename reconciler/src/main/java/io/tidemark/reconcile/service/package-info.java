/**
 * The reconciliation service: runs one reconciliation of a dataset (engine, rules, reports,
 * metrics, alarms), schedules them and guards against concurrent runs. It sits above every engine,
 * rule and store, and below the REST resources.
 */
package io.tidemark.reconcile.service;
