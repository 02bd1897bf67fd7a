#!/usr/bin/env bash
# Fails when a C++ file of the project is not clang-format clean.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
fmt="$(command -v clang-format-16 || command -v clang-format)"
git ls-files -- '*.cpp' '*.hpp' | xargs "$fmt" --dry-run --Werror
