#!/usr/bin/env bash
# Environment for the relocated Open MPI that bundle_openmpi.sh made.
#   source scripts/gpu_check/openmpi_env.sh FOLDER   # sets it in the calling shell
#   bash scripts/gpu_check/openmpi_env.sh FOLDER     # prints it as export lines
# Written to be sourced from `set -euo pipefail` scripts: no exit, no unset variables, and it
# leaves the caller's shell options alone.

_ompi_env() {
  local b=${1:-}
  [[ -n $b && -x $b/usr/bin/orterun ]] || {
    echo "openmpi_env.sh: no bundle_openmpi.sh output at '${b}'" >&2
    return 1
  }
  b=$(cd "$b" && pwd -P)
  local arch=x86_64-linux-gnu lib=$b/lib f d found
  # libz / libudev only where the target lacks them, so its newer copies win otherwise.
  for f in "$b"/lib/fallback/*; do
    found=0
    for d in /lib/$arch /usr/lib/$arch /lib64 /usr/lib64; do [[ -s $d/${f##*/} ]] && found=1; done
    if ((!found)); then
      lib=$lib:$b/lib/fallback
      break
    fi
  done
  _ompi_vars=(
    # Debian's Open MPI finds its components, help files and orted relative to this...
    "OPAL_PREFIX=$b/usr"
    # ...except its sysconfdir, which Debian made the absolute /etc/openmpi.
    "OPAL_SYSCONFDIR=$b/etc/openmpi"
    "PATH=$b/usr/bin:${PATH:-/usr/bin:/bin}"
    "LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # Debian's external PMIx 4.2 reads PMIX_PREFIX (older ones PMIX_INSTALL_PREFIX, which also
    # silences Open MPI's warning about a relocated OPAL_PREFIX). Its own conf file names the
    # absolute component path, so that is overridden too.
    "PMIX_PREFIX=$b/usr/lib/$arch/pmix2"
    "PMIX_INSTALL_PREFIX=$b/usr/lib/$arch/pmix2"
    "PMIX_MCA_mca_base_component_path=$b/usr/lib/$arch/pmix2/lib/pmix"
    # Munge security would want a munged daemon; the dstore's shared-memory locks are a known
    # trouble spot in containers. Neither is needed on one host.
    "PMIX_MCA_psec=native"
    "PMIX_MCA_gds=hash"
    # Shared memory and self only: the UCX / libfabric / verbs / PSM components are not bundled.
    "OMPI_MCA_pml=ob1"
    "OMPI_MCA_btl=self,vader"
    "OMPI_MCA_osc=^ucx,pt2pt"
    # Cross-memory attach (process_vm_readv) fails in containers without CAP_SYS_PTRACE.
    "OMPI_MCA_btl_vader_single_copy_mechanism=none"
    # The machine runs everything as root, and -np may exceed the cores a cgroup grants.
    "OMPI_ALLOW_RUN_AS_ROOT=1"
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    "OMPI_MCA_rmaps_base_oversubscribe=1"
    "OMPI_MCA_hwloc_base_binding_policy=none"
    # hwloc's own plugins (PCI, OpenCL, GL) are not bundled; keep it from loading the target's.
    "HWLOC_PLUGINS_PATH=$b/lib/hwloc-plugins-none"
  )
}

if [[ ${BASH_SOURCE[0]} != "$0" ]]; then
  _ompi_env "${1:-}" || return 1
  for _ompi_v in "${_ompi_vars[@]}"; do export "${_ompi_v?}"; done
  unset _ompi_v _ompi_vars
  unset -f _ompi_env
else
  set -euo pipefail
  _ompi_env "${1:-}"
  for v in "${_ompi_vars[@]}"; do printf 'export %s=%q\n' "${v%%=*}" "${v#*=}"; done
fi
