#!/usr/bin/env bash
# Mutation testing for the physics/planning modules and the parser's number reading (not in CI: slow).
#
#   scripts/mutation.sh engine/memory.py engine/units.py     # one or more modules
#   JOBS=2 scripts/mutation.sh engine/*.py                    # more parallel workers (default 1)
#
# mutmut mutates every function in [tool.mutmut] source_paths (engine/, parser/) into ./mutants/,
# then runs only the mutants of the modules given here, each against the tests that call it
# (tests/engine and tests/parser, see pyproject.toml). Module-level constants are not mutated by
# mutmut 3: scripts/named_mutants.py covers the tables and constants (see docs/testing.md).
# Results stay in ./mutants/ (git-ignored): `mutmut results`, `mutmut show <name>`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
  echo "usage: $0 engine/memory.py [engine/units.py ...]" >&2
  exit 2
fi
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-/tmp/cache-mutation}"
patterns=()
for module in "$@"; do
  name="${module%.py}"
  patterns+=("${name//\//.}.*")
done
HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-mutation}" nice -n 10 python -m mutmut run --max-children "${JOBS:-1}" "${patterns[@]}"
python scripts/mutation_score.py "$@"
