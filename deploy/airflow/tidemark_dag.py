"""Tidemark in Airflow: ingest a dataset with the stack's Glue job, reconcile it in full, and run
the work that needs proven data only when the reconciliation passed.

The reconcile task calls the ``tidemark-reconcile`` client (``reconciler/bin/tidemark-reconcile``;
it needs bash and curl on the worker) with TIDEMARK_URL and TIDEMARK_API_KEY in the worker's
environment (the key from a secrets backend, never in this file). Its exit code is the verdict:

    0  PASSED: every rule passed; the downstream task runs
    1  FAILED: a rule failed; the task fails and nothing downstream runs
    2  the request was refused (bad option, wrong API key, unknown dataset, a run already going)
    3  ERROR: the reconciliation could not check
    4  no verdict within --wait: the reconciliation goes on
    5  the reconciler could not be reached

Airflow fails a BashOperator on any non-zero exit, so every verdict but PASSED stops the run here.
The task does not retry: a retry after FAILED would reconcile the broken table again, and one after
4 would find the first run still going (2). Clear the task once the cause is dealt with.

Names to change for your deployment: GLUE_JOB (the stack's IngestJobName output), DATASET (as the
contract names it) and the schedule.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG

GLUE_JOB = "tidemark-ingest-main"
DATASET = "customers"

# The reconcile task's command, as the worker runs it.
RECONCILE_COMMAND = f"tidemark-reconcile --dataset {DATASET} --mode full --wait PT15M"

with DAG(
    dag_id=f"tidemark_{DATASET}",
    description=f"Ingest {DATASET} into its curated Iceberg table, then prove it equal to raw",
    schedule="0 3 * * *",
    start_date=datetime(2026, 1, 1),
    catchup=False,
    max_active_runs=1,
    tags=["tidemark"],
) as dag:
    ingest = GlueJobOperator(
        task_id="ingest",
        job_name=GLUE_JOB,
        script_args={"--dataset": DATASET},
        wait_for_completion=True,
        verbose=True,
    )

    reconcile = BashOperator(
        task_id="reconcile",
        bash_command=RECONCILE_COMMAND,
        retries=0,
        execution_timeout=timedelta(minutes=20),
    )

    publish = BashOperator(
        task_id="publish",
        # Work that needs proven data: it reads the snapshot the verdict names (the Iceberg tag
        # tidemark_verified points at it).
        bash_command=f"echo '{DATASET} is proven equal to raw: publish it'",
    )

    ingest >> reconcile >> publish
