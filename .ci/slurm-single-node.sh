#!/usr/bin/env bash
# Copied from ../shared/tools/slurm-single-node.sh (CI runs on a clean clone without ../shared);
# .ci/run brings the cluster up for tests/test_slurm_cluster.py.
# A single-node SLURM cluster on this host (munged + slurmctld + slurmd, no accounting daemon), for
# testing a workflow's SLURM profile for real. Debian 12, run as root. Works without systemd: the
# daemons are started directly and stopped by the pid files this script records.
#
#   bash slurm-single-node.sh up      # install packages, write /etc/slurm/slurm.conf, start daemons, smoke test
#   bash slurm-single-node.sh smoke   # srun/sbatch check
#   bash slurm-single-node.sh down    # stop only what `up` started
#
# Environment: PARTITION (default main), REAL_MEMORY_MB (default 85% of what slurmd -C reports).
# Seen working: 2-core 24 GiB Debian 12 VM, Slurm 22.05.8 (Debian), Snakemake 9.27.1,
# snakemake-executor-plugin-slurm 2.8.0; about 3 minutes from nothing to a finished 3-sector run.
# Without accounting, `sacct` answers "Slurm accounting storage is disabled": the executor plugin must
# then be told `--slurm-status-command squeue`, or it waits forever after the jobs finish.
set -euo pipefail

PARTITION=${PARTITION:-main}
CONF=/etc/slurm/slurm.conf
STARTED=/run/cuzk-slurm-ci.started   # pid files of the daemons this script started (for down)

install_packages() {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    # slurmctld/slurmd/slurm-client depend on slurm-wlm-basic-plugins (every plugin named below) and
    # munge; the slurm-wlm metapackage would add ~40 plugin and -dev packages nothing here needs.
    apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge
}

write_slurm_conf() {
    local host cpus sockets cores threads mem
    host=$(hostname -s)
    # the controller and the node are this host: its name must resolve
    getent hosts "$host" >/dev/null || echo "127.0.0.1 $host" >> /etc/hosts
    # CPUs and topology as slurmd itself sees them (a mismatch drains the node)
    read -r cpus sockets cores threads mem < <(slurmd -C | head -1 | tr ' ' '\n' |
        awk -F= '/^CPUs=/{c=$2} /^SocketsPerBoard=/{s=$2} /^CoresPerSocket=/{k=$2}
                 /^ThreadsPerCore=/{t=$2} /^RealMemory=/{m=$2} END{print c, s, k, t, m}')
    mem=${REAL_MEMORY_MB:-$(( mem * 85 / 100 ))}
    install -d -m 0755 /etc/slurm
    cat > "$CONF" <<EOF
# Single-node SLURM cluster for testing (controller and compute node on this host)
ClusterName=cuzk-ci
SlurmctldHost=$host
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
SwitchType=switch/none
# no cgroups (containers rarely allow them): track job processes through /proc, no task confinement
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
# cores and memory are consumable: --mem and --cpus-per-task decide what runs side by side
SelectTypeParameters=CR_Core_Memory
# no slurmdbd: sacct answers "Slurm accounting storage is disabled" (use squeue for job status)
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
InactiveLimit=0
KillWait=30
# finished jobs stay visible to squeue this long (the executor plugin wants >= 3 status intervals)
MinJobAge=300
Waittime=0
NodeName=$host CPUs=$cpus Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$mem State=UNKNOWN
# DefMemPerCPU: a job without --mem would otherwise be given the whole node's memory
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP DefMemPerCPU=1024
EOF
}

start_munge() {
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return; fi   # already running (systemd)
    [ -s /etc/munge/munge.key ] || { mungekey --create --force; chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key; }
    install -d -o munge -g munge -m 0755 /run/munge
    runuser -u munge -- /usr/sbin/munged          # forks; pid in /run/munge/munged.pid
    echo /run/munge/munged.pid >> "$STARTED"
    munge -n | unmunge >/dev/null
}

start_slurm() {
    install -d -o slurm -g slurm -m 0755 /var/lib/slurm/slurmctld /var/log/slurm
    install -d -m 0755 /var/lib/slurm/slurmd
    if ! scontrol ping 2>/dev/null | grep -q UP; then
        # -D: stay in the foreground; setsid+nohup detach it from this shell
        setsid nohup /usr/sbin/slurmctld -D >> /var/log/slurm/slurmctld.out 2>&1 < /dev/null &
        echo /run/slurmctld.pid >> "$STARTED"
        for _ in $(seq 30); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 1; done
    fi
    if ! [ -s /run/slurmd.pid ] || ! kill -0 "$(cat /run/slurmd.pid)" 2>/dev/null; then
        setsid nohup /usr/sbin/slurmd -D >> /var/log/slurm/slurmd.out 2>&1 < /dev/null &
        echo /run/slurmd.pid >> "$STARTED"
    fi
    # "idle*" (asterisk: not responding yet) is not enough; a drained node names its reason in %E
    for _ in $(seq 60); do [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break; sleep 1; done
    sinfo
    [ "$(sinfo -h -o %T)" = idle ] || { echo "node not idle: $(sinfo -h -o '%T %E')" >&2; exit 1; }
}

smoke() {
    srun hostname
    sbatch --wait --wrap hostname -o /dev/null
    sacct >/dev/null 2>&1 && echo "sacct works" || echo "sacct: $(sacct 2>&1 | head -1) (expected without slurmdbd)"
}

up() {
    install_packages
    write_slurm_conf
    start_munge
    start_slurm
    smoke
}

down() {
    # only the daemons this script started (slurmd, slurmctld, munged: the reverse of their start), by pid
    local f
    [ -s "$STARTED" ] || return 0
    for f in $(tac "$STARTED"); do
        if [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; then kill "$(cat "$f")"; fi
    done
    rm -f "$STARTED"
}

case "${1:-all}" in
    up) up ;;
    smoke) smoke ;;
    down) down ;;
    *) echo "usage: $0 up|smoke|down" >&2; exit 2 ;;
esac
