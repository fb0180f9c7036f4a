#!/bin/bash
# Device facts for the sandbox's memory limit (issue 3): cgroups offered, and the address-space
# and data limits CUDA tolerates. Run on the GPU machine from the repository root.
set -u
echo "== cgroups"; cat /proc/self/cgroup; mount | grep cgroup
ls /sys/fs/cgroup | head -40
echo "controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>&1)"
echo "subtree: $(cat /sys/fs/cgroup/cgroup.subtree_control 2>&1)"
echo "procs in root: $(wc -l < /sys/fs/cgroup/cgroup.procs)"; cat /sys/fs/cgroup/cgroup.procs | head
echo "type: $(cat /sys/fs/cgroup/cgroup.type 2>&1)"
mkdir /sys/fs/cgroup/kjprobe && echo "mkdir ok" && ls /sys/fs/cgroup/kjprobe && rmdir /sys/fs/cgroup/kjprobe
id; uname -r; cat /proc/sys/kernel/unprivileged_userns_clone 2>&1; cat /proc/sys/user/max_user_namespaces
echo "== cuda vm"
nvcc -O2 -o /tmp/cuda_vm results/probe/cuda_vm.cu || exit 1
/tmp/cuda_vm
for gb in 1 2 4 8 16 32 64 128 256 512 1024; do
  kb=$((gb * 1024 * 1024))
  r=$( (ulimit -v $kb; /tmp/cuda_vm) 2>&1 | head -1); echo "RLIMIT_AS ${gb} GiB: $r"
done
for mb in 64 128 256 512 1024 2048 4096; do
  b=$((mb * 1024 * 1024))
  r=$(prlimit --data=$b /tmp/cuda_vm 2>&1 | head -1); echo "RLIMIT_DATA ${mb} MiB: $r"
done
echo "== torch"
python3 - <<'PY'
import torch, re
x = torch.ones(1 << 20, device="cuda"); y = (x * 2).sum().item()
s = open("/proc/self/status").read()
print("torch", {k: re.search(k + r":\s+(\d+)", s).group(1) for k in ["VmPeak", "VmSize", "VmData", "VmRSS"]})
PY
for mb in 512 1024 2048 4096 8192; do
  b=$((mb * 1024 * 1024))
  r=$(prlimit --data=$b python3 -c "import torch; print('ok', torch.ones(4, device='cuda').sum().item())" 2>&1 | tail -1); echo "torch RLIMIT_DATA ${mb} MiB: $r"
done
