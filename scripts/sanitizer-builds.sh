# shellcheck shell=bash
# Sourced by scripts/sanitize.sh and .ci/run: the two instrumented builds, configured in one
# place, and a way to run one in the background at the lowest CPU priority. The end-to-end
# passes keep less than half of the two cores busy (they wait on peers and timers,
# docs/ci.md), so a build niced beside them uses what they leave and takes nothing they ask
# for; a build started while another is compiling gets the cores only as that one leaves them.
: "${root:?the sourcing script sets root to the checkout}"

asan_build() {
  env GATE_BUILD_DIR="$root/build-asan" GATE_BUILD_TYPE=Debug \
    GATE_CMAKE_ARGS="-DGATE_SANITIZE=address,undefined -DGATE_FUZZ=ON -DGATE_BENCH_TOOLS=OFF" \
    bash "$root/scripts/build.sh"
}

tsan_build() {
  env GATE_BUILD_DIR="$root/build-tsan" \
    GATE_CMAKE_ARGS="-DGATE_SANITIZE=thread -DGATE_BENCH_TOOLS=OFF" \
    bash "$root/scripts/build.sh"
}

# `background_build NAME FUNCTION`: starts it niced, its output in build-logs/NAME.log.
background_build() {
  local name=$1 fn=$2
  mkdir -p "$root/build-logs"
  nice -n 19 bash -c "root='$root'; source '$root/scripts/sanitizer-builds.sh'; $fn" \
    >"$root/build-logs/$name.log" 2>&1 &
  eval "background_pid_$name=$!"
}

# `finish_build NAME`: waits for it; on failure prints its log's tail and fails.
finish_build() {
  local name=$1 pid_var="background_pid_$1"
  if wait "${!pid_var}"; then
    return 0
  fi
  echo "== the $name build failed:" >&2
  tail -n 60 "$root/build-logs/$name.log" >&2
  return 1
}
