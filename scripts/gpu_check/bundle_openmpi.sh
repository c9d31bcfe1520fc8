#!/usr/bin/env bash
# Copies this Debian 12 machine's Open MPI 4.1 runtime into a relocatable folder ($1), for a GPU
# machine that has no MPI and no network. Use it there through openmpi_env.sh:
#   source scripts/gpu_check/openmpi_env.sh "$folder"
#
# Layout: Debian's own paths are kept under $folder/usr so that OPAL_PREFIX / PMIX_PREFIX find
# the components and help files at the same relative places; the shared libraries that MPI
# programs built here need are put flat in $folder/lib (LD_LIBRARY_PATH), and the few ordinary
# system libraries the target almost surely has in $folder/lib/fallback (used only if missing
# there, so that they never shadow the target's newer copies in every process).
set -euo pipefail

out=${1:?usage: bundle_openmpi.sh OUTPUT_FOLDER}
arch=x86_64-linux-gnu
sys_ompi=/usr/lib/$arch/openmpi/lib            # Debian's Open MPI libdir
sys_mca=$sys_ompi/openmpi3                      # ... and its pkglibdir (MCA components)
sys_pmix=/usr/lib/$arch/pmix2                   # Debian's external PMIx prefix

if ! command -v orterun >/dev/null || [[ ! -d $sys_mca || ! -d $sys_pmix/lib/pmix ]]; then
  echo "bundle_openmpi.sh: needs Debian 12's openmpi-bin and libpmix2 installed" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out"/{lib/fallback,usr/bin,usr/share/openmpi,etc/openmpi} \
  "$out/usr/lib/$arch/openmpi/lib/openmpi3" "$out/usr/lib/$arch/pmix2/lib/pmix" \
  "$out/usr/lib/$arch/pmix2/share/pmix"

# MCA components that need libraries the target lacks (UCX, libfabric, verbs, PSM, libnl) or
# that only OpenSHMEM / monitoring / debuggers use; openmpi_env.sh keeps Open MPI off them.
drop='^(mca_(atomic|memheap|scoll|spml|sshmem)_.*|mca_.*_(ucx|ofi|openib|psm|psm2)|mca_reachable_netlink|mca_.*_monitoring|ompi_monitoring_prof|libompi_dbg_msgq)\.so$'
for f in "$sys_mca"/*.so; do
  [[ $(basename "$f") =~ $drop ]] || cp -L "$f" "$out/usr/lib/$arch/openmpi/lib/openmpi3/"
done
cp -L "$sys_pmix"/lib/pmix/*.so "$out/usr/lib/$arch/pmix2/lib/pmix/"

# orted too: a singleton (a program started without mpirun) forks one from OPAL_PREFIX/bin.
for b in orterun orted ompi_info; do cp -L "$(command -v $b)" "$out/usr/bin/"; done
# Copies, not links: 15 KiB each, and they survive any way the bundle travels.
cp "$out/usr/bin/orterun" "$out/usr/bin/mpirun"
cp "$out/usr/bin/orterun" "$out/usr/bin/mpiexec"

# Help texts, so that errors on the target are readable rather than "help file not found".
cp -L /usr/share/openmpi/help-*.txt "$out/usr/share/openmpi/"
cp -rL /usr/share/openmpi/amca-param-sets "$out/usr/share/openmpi/"
cp -L "$sys_pmix"/share/pmix/help-*.txt "$out/usr/lib/$arch/pmix2/share/pmix/"
# Debian's sysconfdir is the absolute /etc/openmpi (not under the prefix): OPAL_SYSCONFDIR
# points here. Its mca-params.conf is what the local runs use, so the target behaves alike.
cp -L /etc/openmpi/openmpi-mca-params.conf /etc/openmpi/openmpi-default-hostfile "$out/etc/openmpi/"

# Shared-library closure of everything above, less glibc and the C++ runtime (the target's are
# newer, and mixing glibc pieces breaks). The PMIx components find libpmix there as well.
skip='^(linux-vdso|ld-linux-x86-64|libc|libm|libmvec|libdl|libpthread|librt|libresolv|libutil|libnsl|libstdc\+\+|libgcc_s)\.so'
fallback='^(libz|libudev)\.so'
roots=("$out"/usr/bin/{orterun,orted,ompi_info} "$out/usr/lib/$arch"/openmpi/lib/openmpi3/*.so
  "$out/usr/lib/$arch"/pmix2/lib/pmix/*.so "/usr/lib/$arch/libmpi.so.40" "/usr/lib/$arch/libmpi_cxx.so.40")
declare -A seen=()
while ((${#roots[@]})); do
  f=${roots[0]}
  roots=("${roots[@]:1}")
  # The bundle's copies of components carry Debian's RUNPATH, so ldd still resolves them
  # against the system, which is what we want to copy from.
  while read -r name arrow path _; do
    [[ $arrow == "=>" && $name != /* ]] || continue
    [[ $name =~ $skip || -n ${seen[$name]:-} ]] && continue
    [[ $path == not ]] && { echo "bundle_openmpi.sh: $f needs $name, not found" >&2; exit 1; }
    seen[$name]=1
    dest=$out/lib
    [[ $name =~ $fallback ]] && dest=$out/lib/fallback
    cp -L "$path" "$dest/$name"
    roots+=("$path")
  done < <(env -u LD_LIBRARY_PATH ldd "$f")
done
# ldd of libmpi itself does not list libmpi; programs link it directly.
for l in libmpi.so.40 libmpi_cxx.so.40; do cp -L "/usr/lib/$arch/$l" "$out/lib/$l"; done

echo "bundle_openmpi.sh: $(du -sh "$out" | cut -f1) in $out"
