/**
 * The checkpoint stage: the job's progress, kept in the summary of the snapshot that committed the
 * batch ({@link io.tidemark.ingest.checkpoint.CheckpointCodec}), read from main's history ({@link
 * io.tidemark.ingest.checkpoint.CheckpointLog}) into the state a run starts from ({@link
 * io.tidemark.ingest.checkpoint.TableState}), advanced by a batch, and the deterministic batch ids
 * that let a retry recognise its own commit. Discovery, the commit and report recovery read it; it
 * reads only the kernel.
 */
package io.tidemark.ingest.checkpoint;
