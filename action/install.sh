#!/usr/bin/env bash
# Installs the labelwise package the action runs, as a user installs it: from INPUT_PACKAGE (a
# tarball or a directory) when given, else from this action's own checkout, packed (prepare
# builds dist/) and installed globally from the tarball.
set -euo pipefail
action_dir="$(cd "$(dirname "$0")/.." && pwd)"
package="${INPUT_PACKAGE:-}"
temp="${RUNNER_TEMP:-$(mktemp -d)}"
if [ -z "$package" ]; then
  cd "$action_dir"
  npm ci --no-audit --no-fund --loglevel=error
  package="$temp/$(npm pack --silent --pack-destination "$temp" | tail -n 1)"
fi
npm install -g --no-audit --no-fund --loglevel=error "$package"
labelwise --version
