# Shared prologue of the benchmark scripts (sourced, not run): builds the
# release binary and generates the synthetic repository once.
#   setup DEFAULT_NAME [DIR] [synth.py options...]  → sets $bin, $repo; cds into $repo
setup() {
  local name=$1 dir=${2:-}
  shift 2 || shift $#
  here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
  repo=${dir:-$here/work/$name}
  (cd "$here/.." && cargo build --release --locked --quiet)
  bin=$(cd "$here/.." && pwd)/target/release/sota
  [ -d "$repo/.git" ] || python3 "$here/synth.py" "$repo" "$@"
  cd "$repo"
}
