#!/usr/bin/env bash
# Builds the libFuzzer targets (build-fuzz/: clang, ASan + UBSan) and runs each one:
#   1. replays tests/fuzz/regressions/<target>/ (inputs that once crashed) as a fixed check;
#   2. fuzzes for FUZZ_SECONDS (default 60) from tests/fuzz/corpus/<target>/ plus those
#      regressions, keeping new inputs in build-fuzz/corpus/<target>/.
# Exits non-zero if any target crashed, leaked or timed out; the input that did it is in
# build-fuzz/artifacts/<target>/ and reproduces with `build-fuzz/tests/fuzz/<target> FILE`.
# tests/fuzz/pending/ holds known crashing inputs whose fix is not in yet: not replayed.
# Targets run FUZZ_JOBS at a time (default: one per core).
#   scripts/fuzz.sh                                   every target, 60 s each
#   FUZZ_SECONDS=3600 scripts/fuzz.sh sql_engine_fuzz one target for an hour
set -euo pipefail
cd "$(dirname "$0")/.."

all=(metadata_json_fuzz audit_refs_fuzz avro_container_fuzz manifest_fuzz manifest_list_fuzz puffin_fuzz
     parquet_fuzz sql_parser_fuzz sql_engine_fuzz pg_message_fuzz http_request_fuzz rest_request_fuzz
     rest_catalog_fuzz rest_client_answer_fuzz)
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")
seconds=${FUZZ_SECONDS:-60}

scripts/build.sh fuzz -j2 --target "${targets[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

options_for() {
  case "$1" in
    # SQL stays short and keyword-rich; a statement over the tiny tables is quick, so a
    # few seconds is a hang.
    sql_engine_fuzz|sql_parser_fuzz) echo "-max_len=512 -dict=tests/fuzz/sql.dict -timeout=5" ;;
    # One request against the restored catalog: a few tables' worth of metadata work.
    rest_catalog_fuzz) echo "-max_len=4096 -dict=tests/fuzz/rest.dict -timeout=10" ;;
    # A few bytes of run containers make 65536 positions: the length bounds how many a
    # deletion vector decodes to (16 KiB: some 75 million), and so the memory an input takes.
    puffin_fuzz) echo "-max_len=16384 -timeout=10" ;;
    *) echo "-max_len=65536 -timeout=10" ;;
  esac
}

# One target's run: replay, then fuzz. Its lines go to build-fuzz/<target>.out, printed when
# it ends, so targets running side by side do not interleave.
run_target() {
  local t=$1 bin=build-fuzz/tests/fuzz/$1 opts seeds artifacts regressions
  read -r -a opts <<<"$(options_for "$t")"
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/artifacts/$t"
  seeds=("tests/fuzz/corpus/$t")
  [ -d "tests/fuzz/regressions/$t" ] && seeds+=("tests/fuzz/regressions/$t")
  artifacts=(-artifact_prefix="build-fuzz/artifacts/$t/")

  mapfile -t regressions < <(find "tests/fuzz/regressions/$t" -type f 2>/dev/null | sort)
  if ((${#regressions[@]})); then
    echo "fuzz: $t: replaying ${#regressions[@]} regression inputs"
    if ! "$bin" "${opts[@]}" "${artifacts[@]}" "${regressions[@]}" >"build-fuzz/$t.replay.log" 2>&1; then
      tail -n 40 "build-fuzz/$t.replay.log"
      echo "fuzz: $t: a regression input fails again (log: build-fuzz/$t.replay.log)"
      return 1
    fi
  fi

  echo "fuzz: $t: fuzzing for ${seconds}s"
  if ! "$bin" "${opts[@]}" "${artifacts[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      "build-fuzz/corpus/$t" "${seeds[@]}" \
      >"build-fuzz/$t.log" 2>&1; then
    tail -n 60 "build-fuzz/$t.log"
    echo "fuzz: $t: FAILED (log: build-fuzz/$t.log, input: build-fuzz/artifacts/$t/)"
    return 1
  fi
  { grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/$t.log" || true; } | tr "\n" " "; echo
}

# FUZZ_JOBS targets at a time (default: one per core); each fuzzes on one core. A target's
# exit status goes to build-fuzz/<target>.status.
parallel=${FUZZ_JOBS:-$(nproc)}
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  rm -f "build-fuzz/$t.status"
  { status=0; run_target "$t" >"build-fuzz/$t.out" 2>&1 || status=$?; echo "$status" >"build-fuzz/$t.status"; } &
done
wait
failed=()
for t in "${targets[@]}"; do
  cat "build-fuzz/$t.out"
  [ "$(cat "build-fuzz/$t.status" 2>/dev/null)" = 0 ] || failed+=("$t")
done

if ((${#failed[@]})); then
  echo "fuzz: failing targets: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets clean"
