#!/bin/sh
# aorta-probe as a Slurm TaskProlog (slurm.conf: TaskProlog=/etc/slurm/task-prolog.sh),
# docs/fleet.md#a-job-prolog. It probes inside every step that asks for it,
# as the step's user, in the step's own environment, before the step's
# command starts on each node. A step asks with AORTA_PROBE_OUT_DIR in its
# environment:
#
#   srun --export=ALL,AORTA_PROBE_OUT_DIR=/shared/env ./train.py
#
# and the node's document lands in /shared/env/JOBID.STEPID/NODE.json. The
# probe is $AORTA_PROBE, else /usr/local/bin/aorta-probe. Nothing is
# printed: slurmstepd reads a TaskProlog's stdout for export/unset lines.
# A probe that fails never fails the step.
[ -n "${AORTA_PROBE_OUT_DIR:-}" ] || exit 0
[ "${SLURM_LOCALID:-0}" = 0 ] || exit 0 # one probe per node and step
dir="$AORTA_PROBE_OUT_DIR/${SLURM_JOB_ID:-job}.${SLURM_STEP_ID:-step}"
mkdir -p "$dir" 2>/dev/null
"${AORTA_PROBE:-/usr/local/bin/aorta-probe}" --out-dir "$dir" </dev/null >/dev/null 2>&1
exit 0
