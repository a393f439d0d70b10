# Sourced by the scripts that configure a CMake preset.
#   reset_stale_build_dir DIR SRC
# Removes DIR, saying so, when CMake could not configure it again for its preset: made by another
# generator (the presets use Ninja; until 2026-12-08 they used Unix Makefiles) or for another source
# tree (a copied or moved checkout). The preset then configures it afresh.
reset_stale_build_dir() {
  local dir=$1 src=$2 cache=$1/CMakeCache.txt
  [[ -f $cache ]] || return 0
  if grep -qx "CMAKE_GENERATOR:INTERNAL=Ninja" "$cache" && grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$cache"; then
    return 0
  fi
  echo "$(basename "$0"): $dir was configured by another generator or for another source tree; configuring it afresh"
  rm -rf "$dir"
}
